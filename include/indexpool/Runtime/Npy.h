//===- Npy.h - NumPy .npy files and their host tensors ----------*- C++ -*-===//
//
// Reads and writes NumPy .npy files (format versions 1.0 and 2.0, C order,
// little-endian) and converts them to and from reference HostTensors, as
// What indexpool-run --help states: bf16/f16/f8 inputs come from float
// arrays with round-to-nearest-even, and such results go out as float32.
// No exceptions: every function reports failure through its return value
// and an error string, so the code links into -fno-exceptions tools.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_NPY_H
#define INDEXPOOL_RUNTIME_NPY_H

#include "indexpool/Reference/HostTensor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace indexpool::runtime {

/// The contents of one .npy file.
struct NpyArray {
  /// The NumPy type descriptor, canonical: "<f2", "<f4", "<f8", "|i1",
  /// "|u1", "<i4" or "<i8" ("<i1" and "<u1" are read as "|i1" and "|u1").
  std::string dtype;
  std::vector<int64_t> shape;
  /// The elements in C order, little-endian.
  std::vector<char> bytes;
};

/// Bytes per element of a supported descriptor (either spelling of the
/// one-byte types); 0 when the descriptor is not supported.
int64_t npyItemSize(std::string_view dtype);

/// Reads `path` into `out`. On failure returns false and sets `error` to one
/// line naming the path and the problem (missing file, bad magic,
/// unsupported version or dtype, Fortran order, malformed header, truncated
/// or trailing data).
bool readNpy(const std::string &path, NpyArray &out, std::string &error);

/// Writes `array` to `path` (version 1.0 when the header fits, else 2.0).
/// Fails for an unsupported dtype, a byte count that does not match the
/// shape, or an I/O error.
bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error);

/// Converts an array to a tensor of element type `type`: float arrays
/// (<f2, <f4, <f8) to f32/f16/bf16/f8E4M3FN, rounding to nearest even;
/// integer arrays (|i1, |u1, <i4, <i8) to i8/i32, failing on a value out of
/// range. A float array for an integer type, or the reverse, is an error.
bool npyToHostTensor(const NpyArray &array, ref::ElementType type,
                     ref::HostTensor &out, std::string &error);

/// The array indexpool-run writes for a result: float types as "<f4"
/// (bf16, f16 and f8 values are exact in float32), i8 as "|i1", i32 as "<i4".
NpyArray hostTensorToNpy(const ref::HostTensor &tensor);

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_NPY_H
