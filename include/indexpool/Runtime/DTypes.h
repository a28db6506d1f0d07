//===- DTypes.h - the API's DType and the reference's ElementType -*- C++ -*-===//
//
// The same seven element types on both sides (include/indexpool/API/Tensor.h
// and Reference/Numerics.h): one mapping, for the API, the C API and
// GpuFunction. Header-only and MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_DTYPES_H
#define INDEXPOOL_RUNTIME_DTYPES_H

#include "indexpool/API/Tensor.h"
#include "indexpool/Reference/Numerics.h"

namespace indexpool::runtime {

inline ref::ElementType toElementType(DType dtype) {
  switch (dtype) {
  case DType::F32: return ref::ElementType::F32;
  case DType::F16: return ref::ElementType::F16;
  case DType::BF16: return ref::ElementType::BF16;
  case DType::F8E4M3FN: return ref::ElementType::F8E4M3FN;
  case DType::I8: return ref::ElementType::I8;
  case DType::I32: return ref::ElementType::I32;
  case DType::I64: return ref::ElementType::I64;
  case DType::I4: return ref::ElementType::I4;
  }
  return ref::ElementType::F32;
}

inline DType toDType(ref::ElementType type) {
  switch (type) {
  case ref::ElementType::F32: return DType::F32;
  case ref::ElementType::F16: return DType::F16;
  case ref::ElementType::BF16: return DType::BF16;
  case ref::ElementType::F8E4M3FN: return DType::F8E4M3FN;
  case ref::ElementType::I8: return DType::I8;
  case ref::ElementType::I32: return DType::I32;
  case ref::ElementType::I64: return DType::I64;
  case ref::ElementType::I4: return DType::I4;
  }
  return DType::F32;
}

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_DTYPES_H
