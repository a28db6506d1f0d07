//===- HostTensor.h - a dense host tensor of float64 values -----*- C++ -*-===//
//
// What the reference evaluator computes on: a row-major tensor whose values
// are doubles, each exactly representable in `type` (an f8E4M3FN element
// holds the value it decodes to, an i8 element the integer, e.g. 5.0).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_REFERENCE_HOSTTENSOR_H
#define INDEXPOOL_REFERENCE_HOSTTENSOR_H

#include "indexpool/Reference/Numerics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace indexpool::ref {

/// Product of the sizes (1 for rank 0; 0 when any size is 0, whatever the
/// others are); -1 when a size is negative or the product overflows int64.
int64_t numElements(const std::vector<int64_t> &shape);
/// "[4, 128]"; "[]" for rank 0. For error messages.
std::string shapeString(const std::vector<int64_t> &shape);

struct HostTensor {
  ElementType type = ElementType::F32;
  std::vector<int64_t> shape;
  std::vector<double> data; // row-major, numElements() values

  int64_t rank() const { return int64_t(shape.size()); }
  int64_t numElements() const { return ref::numElements(shape); }

  /// A tensor of `shape` filled with zeros.
  static HostTensor zeros(ElementType type, std::vector<int64_t> shape);
};

} // namespace indexpool::ref

#endif // INDEXPOOL_REFERENCE_HOSTTENSOR_H
