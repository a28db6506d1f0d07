//===- Fidelity.h - indexpool-fidelity in one call --------------*- C++ -*-===//
//
// Loads keys and queries (.npy, [T, D] f32), pools the keys and selects
// tokens for the last N causal decode queries through the compiled kernels
// (PooledSelection.h), and measures the result in float64 (Metrics.h).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_FIDELITY_FIDELITY_H
#define INDEXPOOL_FIDELITY_FIDELITY_H

#include "indexpool/API/Status.h"
#include "indexpool/Fidelity/Metrics.h"
#include "indexpool/Fidelity/PooledSelection.h"
#include "indexpool/Fidelity/Report.h"

#include <cstdint>
#include <string>
#include <vector>

namespace indexpool::fidelity {

/// The token keys refine reads: the keys as given (f32); a residual tier
/// (each key's residual against its stored pooled key, quantized per vector,
/// added back: tierKeys); or a token tier (each key itself quantized per
/// vector, rotated first when the pooled keys are: tokenTierKeys). Both
/// quantized kinds cost D + 4 bytes per token (codes and an f32 scale).
enum class RefineKeys { Exact, ResidualI8, ResidualFP8, TokenFP8, TokenI8 };
/// "exact", "i8", "fp8", "token-fp8", "token-i8".
const char *refineKeysName(RefineKeys keys);

struct FidelityOptions {
  std::string keysPath;
  std::string queriesPath;
  /// Empty: no bias.
  std::string biasPath;
  int64_t poolSize = 4;
  int64_t k = 256;
  PoolFormat format = PoolFormat::None;
  bool rotate = false;
  bool normScores = false;
  int64_t last = 16;
  /// The refine factor C: select keeps C x k / P pools, refine keeps the
  /// best k of their tokens by the exact keys (0: select alone).
  int64_t refine = 0;
  RefineKeys refineKeys = RefineKeys::Exact;
  /// How select ranks pools (PooledSelection.h), and MaxAware's weight a
  /// (non-negative).
  FirstStage firstStage = FirstStage::Mean;
  double boundWeight = 1.0;
  RadiusFormat radiusFormat = RadiusFormat::F32;
  /// Empty: pooling scores from normScores. Else a [D] f32 gate: pooling
  /// scores gate . k_t (query-aware; indexpool-calibrate --gate fits one).
  std::string gatePath;
};

/// The selections of the last `rows` positions of `queries` ([T, D] f32,
/// D = keys.cols) as causal decode queries over `pooled` (pooled from the
/// keys zero-padded to `paddedDim` columns with `pooling`), through the
/// compiled kernels (with `refine`: select + refine over `refine.keys`,
/// [T, paddedDim]), against the exact float64 top-k of `keys`: one recall
/// and one mass recall per query.
Status measureSelections(const PooledKeys &pooled, const PoolingOptions &pooling,
                         const std::vector<float> &queries, const Matrix &keys,
                         int64_t paddedDim, int64_t rows, int64_t k,
                         std::vector<double> &recalls,
                         std::vector<double> &massRecalls,
                         const RefineOptions &refine = RefineOptions());

/// Runs the whole measurement. Every bad file or setting is one line in the
/// returned Status.
Status runFidelity(const FidelityOptions &options, FidelityReport &report);

} // namespace indexpool::fidelity

#endif // INDEXPOOL_FIDELITY_FIDELITY_H
