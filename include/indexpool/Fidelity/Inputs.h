//===- Inputs.h - the keys and queries the fidelity tools read --*- C++ -*-===//
//
// What indexpool-fidelity and indexpool-calibrate share about their inputs:
// float32 .npy arrays, their shapes in messages, zero-padding of the columns
// (for the Hadamard rotation) and the float64 copy the metrics use.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_FIDELITY_INPUTS_H
#define INDEXPOOL_FIDELITY_INPUTS_H

#include "indexpool/API/Status.h"
#include "indexpool/Fidelity/Metrics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace indexpool::fidelity {

/// An f32 array read from .npy.
struct FloatArray {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

/// "[4, 128]".
std::string shapeText(const std::vector<int64_t> &shape);

/// Reads `path` as a float32 .npy array; `what` ("--keys") starts messages.
Status readFloat32(const std::string &what, const std::string &path,
                   FloatArray &out);

/// --keys and --queries: both float32 [T, D] of the same, non-empty shape.
Status readKeysAndQueries(const std::string &keysPath,
                          const std::string &queriesPath, FloatArray &keys,
                          FloatArray &queries);

/// Rows of `cols` values zero-padded to `paddedCols`.
std::vector<float> padColumns(const std::vector<float> &values, int64_t rows,
                              int64_t cols, int64_t paddedCols);

/// The values as a float64 [rows, cols] matrix.
Matrix toMatrix(const std::vector<float> &values, int64_t rows, int64_t cols);

inline bool isPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/// --pool-size=P a power of two in [2, 64] and --k=K a positive multiple
/// of it, the rule every fidelity tool shares.
Status checkPoolSizeAndK(int64_t poolSize, int64_t k);

} // namespace indexpool::fidelity

#endif // INDEXPOOL_FIDELITY_INPUTS_H
