//===- Tensor.h - a caller's buffer seen by the API -------------*- C++ -*-===//
//
// TensorRef is a non-owning view of a dense, row-major buffer (no strides, no
// offset), like a DLPack tensor of a contiguous array: the API never copies
// or frees what it points to. Elements are in their storage format: f16 and
// bf16 as their 16-bit patterns, f8E4M3FN as one byte code (the OCP FP8
// E4M3 encoding, no infinities, 0x7f/0xff NaN), integers as themselves,
// little-endian. Header-only: the MLIR-free runtime uses it too; the
// conversions of the formats are in Formats.h.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_API_TENSOR_H
#define INDEXPOOL_API_TENSOR_H

#include "indexpool/Vocabulary/ElementTypes.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace indexpool {

/// The element types of IndexPool functions' arguments and results
/// (ElementTypes.def), and the code types of the page layouts only, such as
/// I4 (PageLayout::codeType: codes two a byte in i8 pages); no argument or
/// result is of a type without ElementUse::Tensor.
using DType = ElementType;

/// The MLIR spelling: "f32", "f16", "bf16", "f8E4M3FN", "i8", ...
constexpr const char *dtypeName(DType dtype) { return elementTypeName(dtype); }

/// Bytes per element of the storage format (0 for a type no tensor holds).
constexpr size_t dtypeBytes(DType dtype) {
  return size_t(elementTypeInfo(dtype).tensorBytes());
}

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
  TensorRef(void *data, DType dtype, std::initializer_list<int64_t> sizes)
      : data(data), dtype(dtype) {
    setSizes(sizes.begin(), sizes.size());
  }
  TensorRef(void *data, DType dtype, const std::vector<int64_t> &sizes)
      : data(data), dtype(dtype) {
    setSizes(sizes.data(), sizes.size());
  }

  std::vector<int64_t> sizes() const {
    return std::vector<int64_t>(shape, shape + (rank > 0 ? rank : 0));
  }

private:
  void setSizes(const int64_t *sizes, size_t count) {
    // More than kMaxRank: rank says so, and the call that receives the view
    // reports it.
    rank = int32_t(count);
    for (size_t d = 0; d < count && d < size_t(kMaxRank); ++d)
      shape[d] = sizes[d];
  }
};

/// The type of an argument or result: sizes are -1 where dynamic.
struct TensorType {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
};

} // namespace indexpool

#endif // INDEXPOOL_API_TENSOR_H
