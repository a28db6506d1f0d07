//===- Tensor.cpp - DType facts and the storage-format helpers ------------===//

#include "indexpool/API/Tensor.h"

#include "indexpool/Reference/Numerics.h"

#include <algorithm>

using namespace indexpool;

const char *indexpool::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32: return "f32";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::F8E4M3FN: return "f8E4M3FN";
  case DType::I8: return "i8";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  }
  return "unknown";
}

size_t indexpool::dtypeBytes(DType dtype) {
  switch (dtype) {
  case DType::F32: case DType::I32: return 4;
  case DType::F16: case DType::BF16: return 2;
  case DType::F8E4M3FN: case DType::I8: return 1;
  case DType::I64: return 8;
  }
  return 0;
}

template <typename Sizes>
static void setShape(TensorRef &t, const Sizes &sizes) {
  // More sizes than kMaxRank: rank says so, and the call that receives the
  // view reports it.
  t.rank = int32_t(sizes.size());
  std::copy_n(sizes.begin(), std::min<size_t>(sizes.size(), kMaxRank),
              t.shape);
}

TensorRef::TensorRef(void *data, DType dtype,
                     std::initializer_list<int64_t> sizes)
    : data(data), dtype(dtype) {
  setShape(*this, sizes);
}

TensorRef::TensorRef(void *data, DType dtype, const std::vector<int64_t> &sizes)
    : data(data), dtype(dtype) {
  setShape(*this, sizes);
}

float indexpool::decodeF8E4M3FN(uint8_t code) {
  return float(ref::decodeF8E4M3FN(code));
}
float indexpool::decodeBF16(uint16_t bits) { return float(ref::decodeBF16(bits)); }
float indexpool::decodeF16(uint16_t bits) { return float(ref::decodeF16(bits)); }
uint8_t indexpool::encodeF8E4M3FN(float value) {
  return ref::encodeF8E4M3FN(value);
}
uint16_t indexpool::encodeBF16(float value) { return ref::encodeBF16(value); }
uint16_t indexpool::encodeF16(float value) { return ref::encodeF16(value); }
