//===- HostTensor.cpp - a dense host tensor of float64 values -------------===//

#include "indexpool/Reference/HostTensor.h"

#include <utility>

namespace indexpool::ref {

int64_t numElements(const std::vector<int64_t> &shape) {
  for (int64_t size : shape)
    if (size == 0)
      return 0;
  int64_t count = 1;
  for (int64_t size : shape)
    if (size < 0 || __builtin_mul_overflow(count, size, &count))
      return -1;
  return count;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

HostTensor HostTensor::zeros(ElementType type, std::vector<int64_t> shape) {
  HostTensor tensor{type, std::move(shape), {}};
  tensor.data.assign(size_t(tensor.numElements()), 0.0);
  return tensor;
}

} // namespace indexpool::ref
