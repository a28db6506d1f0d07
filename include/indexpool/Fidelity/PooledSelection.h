//===- PooledSelection.h - pooling and selection as shipped -----*- C++ -*-===//
//
// The pooled keys and the token selection of indexpool-fidelity, computed by
// the project's compiled CPU kernels through the embedding API
// (libIndexPool): `pool` (+ `hadamard`) for unquantized keys, `compress` for
// FP8 / INT8 codes and scales, and `select` (score + topk + expand, the query
// rotated as the keys were), optionally followed by `refine` (the selected
// pools' tokens re-scored against the token keys), for the tokens a decode
// query keeps.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_FIDELITY_POOLEDSELECTION_H
#define INDEXPOOL_FIDELITY_POOLEDSELECTION_H

#include "indexpool/API/Status.h"
#include "indexpool/Fidelity/Metrics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace indexpool::fidelity {

/// How pooled keys are stored: f32 (the pool op), or FP8 / INT8 codes with
/// one f32 scale per pooled key (the compress op).
enum class PoolFormat { None, FP8, I8 };
/// "none", "fp8", "i8".
const char *poolFormatName(PoolFormat format);

struct PoolingOptions {
  int64_t poolSize = 4;
  PoolFormat format = PoolFormat::None;
  /// Hadamard-rotate the pooled keys (and the queries): D must be a power of
  /// two (callers zero-pad).
  bool rotate = false;
  /// Pooling scores: all zero (equal weights) or ||k_t||.
  bool normScores = false;
  /// Optional bias added to the scores as the pool op does: [P] or [P, D]
  /// f32 (biasShape empty: none).
  std::vector<int64_t> biasShape;
  std::vector<float> bias;
};

/// Pooled keys as compiled code produced them.
struct PooledKeys {
  int64_t groups = 0;
  int64_t dim = 0;
  PoolFormat format = PoolFormat::None;
  /// None: the pooled keys [G, D] f32. FP8 / I8: the codes' bytes [G, D]
  /// and the scales [G].
  std::vector<float> values;
  std::vector<uint8_t> codes;
  std::vector<float> scales;

  /// The pooled keys in float64: the f32 values, or codes * scale.
  Matrix dequantized() const;
};

/// Pools `keys` ([tokens, dim] f32, dim a power of two when rotating) with
/// the compiled pool (+ hadamard) or compress.
Status poolKeys(const std::vector<float> &keys, int64_t tokens, int64_t dim,
                const PoolingOptions &options, PooledKeys &pooled);

/// Token keys as a slower tier of the cache would return them: each key's
/// residual against its stored pooled key (`pooled` dequantized, rotated
/// back when `rotate`), quantized per vector as the quantize op does
/// (`residualFormat` FP8 or I8), added back by reconstruct; computed by the
/// compiled residual -> quantize -> dequantize -> reconstruct. `keys` is
/// [tokens, dim] f32; `reconstructed` gets [groups * P, dim] f32.
Status tierKeys(const std::vector<float> &keys, int64_t tokens,
                const PooledKeys &pooled, int64_t poolSize, bool rotate,
                PoolFormat residualFormat, std::vector<float> &reconstructed);

/// The two-stage selection: select keeps `factor` x k / P pools and
/// indexpool.refine re-scores their tokens against `keys` ([tokens, dim]
/// f32, in the queries' space: unrotated), keeping k. factor 0: off.
struct RefineOptions {
  int64_t factor = 0;
  const std::vector<float> *keys = nullptr;
  int64_t tokens = 0;
};

/// The tokens the compiled select (with `refine`: select + refine) keeps
/// for each query row: `queries` [M, dim] f32 (unrotated), `validPools`
/// [M] (the pools before each row's causal limit), k tokens (a multiple of
/// P). `tokens` gets [M, k] i32, -1 where fewer pools qualify.
Status selectTokens(const PooledKeys &pooled, const std::vector<float> &queries,
                    int64_t rows, const std::vector<int32_t> &validPools,
                    int64_t k, const PoolingOptions &options,
                    std::vector<int32_t> &tokens,
                    const RefineOptions &refine = RefineOptions());

} // namespace indexpool::fidelity

#endif // INDEXPOOL_FIDELITY_POOLEDSELECTION_H
