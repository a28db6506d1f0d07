//===- Metrics.h - what pooling loses, in float64 ---------------*- C++ -*-===//
//
// The float64 side of indexpool-fidelity: the exact token top-k of a causal
// decode query, the recall and attention-mass recall of a selection against
// it, the angles between pooled keys and their originals, and the errors of
// keys reconstructed from a pooled key plus a residual. Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_FIDELITY_METRICS_H
#define INDEXPOOL_FIDELITY_METRICS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace indexpool::fidelity {

/// A dense row-major float64 matrix.
struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<double> data;

  Matrix() = default;
  Matrix(int64_t rows, int64_t cols)
      : rows(rows), cols(cols), data(std::size_t(rows * cols), 0.0) {}
  const double *row(int64_t r) const { return data.data() + r * cols; }
  double *row(int64_t r) { return data.data() + r * cols; }
};

/// NumPy's default percentile (linear interpolation between the closest
/// ranks), q in [0, 100]; NaN for no values.
double percentile(std::vector<double> values, double q);
/// The arithmetic mean; NaN for no values.
double mean(const std::vector<double> &values);

/// The indices of the min(k, n) largest q.k over tokens [0, n) of `keys`,
/// dot products in float64, ties to the smaller index.
std::vector<int64_t> exactTopK(const Matrix &keys, const double *query,
                               int64_t n, int64_t k);

struct QueryFidelity {
  /// |selected ∩ exact top-k| / min(k, n).
  double recall = 0;
  /// Softmax(q.k / sqrt(D)) mass over [0, n) of the selected tokens over
  /// that of the exact top-k.
  double massRecall = 0;
};

/// Compares `selected` (token indices; negative ones and duplicates are
/// ignored, as are indices outside [0, n)) with the exact top-k of `query`
/// over tokens [0, n), n > 0. D is keys.cols.
QueryFidelity compareSelection(const Matrix &keys, const double *query,
                               int64_t n, int64_t k,
                               const std::vector<int32_t> &selected);

/// The angle in degrees between pooled[g] and each of its originals
/// keys[g*P + s], for every complete group g < pooled.rows; pairs where a
/// vector is zero have no angle and are left out.
std::vector<double> poolAnglesDegrees(const Matrix &keys, const Matrix &pooled,
                                      int64_t poolSize);

/// How a residual k - pooled is kept for reconstruction.
enum class ResidualKind { Exact, I8, FP8, None };

/// ||k_hat - k|| / ||k|| of every key of a complete group (zero keys left
/// out), k_hat = pooled[g] + residual: the residual exact, quantized per
/// vector as indexpool.quantize does (rounded to f32 first, as the residual
/// op stores it; absmax with min_absmax 1e-4, scale absmax / qmax, codes
/// rounded to nearest even) and dequantized as codes * scale, or none.
std::vector<double> reconstructionErrors(const Matrix &keys,
                                         const Matrix &pooled,
                                         int64_t poolSize, ResidualKind kind);

} // namespace indexpool::fidelity

#endif // INDEXPOOL_FIDELITY_METRICS_H
