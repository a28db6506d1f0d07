//===- Tensor.h - a caller's buffer seen by the API -------------*- C++ -*-===//
//
// TensorRef is a non-owning view of a dense, row-major buffer (no strides, no
// offset), like a DLPack tensor of a contiguous array: the API never copies
// or frees what it points to. Elements are in their storage format: f16 and
// bf16 as their 16-bit patterns, f8E4M3FN as one byte code (the OCP FP8
// E4M3 encoding, no infinities, 0x7f/0xff NaN), integers as themselves,
// little-endian.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_API_TENSOR_H
#define INDEXPOOL_API_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace indexpool {

/// The element types of IndexPool functions' arguments and results.
enum class DType : int32_t { F32, F16, BF16, F8E4M3FN, I8, I32, I64 };

/// The MLIR spelling: "f32", "f16", "bf16", "f8E4M3FN", "i8", "i32", "i64".
const char *dtypeName(DType dtype);
/// Bytes per element of the storage format.
size_t dtypeBytes(DType dtype);

/// The largest rank a TensorRef holds (IndexPool's tensors have rank <= 3).
constexpr int kMaxRank = 8;

struct TensorRef {
  /// Host memory for CPU functions, device memory for GPU functions. May be
  /// null only when the tensor has no elements.
  void *data = nullptr;
  DType dtype = DType::F32;
  int32_t rank = 0;
  int64_t shape[kMaxRank] = {};

  TensorRef() = default;
  /// A view of `data` with `shape` (at most kMaxRank sizes; more are an
  /// error reported by the call that receives the view).
  TensorRef(void *data, DType dtype, std::initializer_list<int64_t> sizes);
  TensorRef(void *data, DType dtype, const std::vector<int64_t> &sizes);

  std::vector<int64_t> sizes() const {
    return std::vector<int64_t>(shape, shape + (rank > 0 ? rank : 0));
  }
};

/// The type of an argument or result: sizes are -1 where dynamic.
struct TensorType {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
};

/// Decoding helpers for the storage formats NumPy and C++ lack.
float decodeF8E4M3FN(uint8_t code);
float decodeBF16(uint16_t bits);
float decodeF16(uint16_t bits);
/// Round to nearest even, saturating to +-448 (NaN stays NaN), as the
/// compiled code's conversions do.
uint8_t encodeF8E4M3FN(float value);
uint16_t encodeBF16(float value);
uint16_t encodeF16(float value);

} // namespace indexpool

#endif // INDEXPOOL_API_TENSOR_H
