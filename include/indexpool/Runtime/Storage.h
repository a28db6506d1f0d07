//===- Storage.h - host tensors <-> the bytes kernels read ------*- C++ -*-===//
//
// The storage format of each element type, shared by every runtime (the CPU
// JIT of indexpool-run, the CUDA launcher): f32 floats, f16 / bf16 bit
// patterns, f8E4M3FN codes (one byte), i8, i32; little-endian.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_STORAGE_H
#define INDEXPOOL_RUNTIME_STORAGE_H

#include "indexpool/Reference/HostTensor.h"

#include <string>
#include <vector>

namespace indexpool::runtime {

/// Writes the elements of `t` to `destination` (room for all of them).
void storeTensor(const ref::HostTensor &t, char *destination);
/// The storage bytes of `t`.
std::vector<char> packTensor(const ref::HostTensor &t);

/// One element stored at `bytes`.
double loadElement(const char *bytes, ref::ElementType type);
/// numElements(shape) contiguous elements of `type` at `bytes`.
ref::HostTensor unpackTensor(const char *bytes, ref::ElementType type,
                             const std::vector<int64_t> &shape);

/// As indexpool-run --help states: f32/f16/bf16/f8E4M3FN arguments are read from float32 or
/// float16 arrays, i8 from int8, i32 from int32. "" when the .npy `dtype`
/// fits `type`, else what would ("float32 or float16").
std::string expectedNpyDtypes(const std::string &dtype, ref::ElementType type);

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_STORAGE_H
