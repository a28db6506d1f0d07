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
#include "indexpool/Vocabulary/ElementTypes.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace indexpool::fidelity {

/// How pooled keys are stored: f32 (the pool op), or codes of a code type
/// of ElementTypes.def with one f32 scale per pooled key. Types quantize
/// produces (DenseCode: f8E4M3FN, i8) go through the compress and select
/// ops; the others exist only in pages (i4: two codes a byte), so they go
/// through compress_paged and select_paged (pool g at slot g).
struct PoolFormat {
  /// std::nullopt: f32 pooled keys.
  std::optional<ElementType> codes;

  /// The formats the tools name; every other code type is parsePoolFormat's.
  static const PoolFormat None, FP8, I8, I4;

  /// Codes that exist only in pages (compress_paged / select_paged).
  bool paged() const {
    return codes && !elementTypeInfo(*codes).allows(ElementUse::DenseCode);
  }
  bool operator==(const PoolFormat &o) const { return codes == o.codes; }
  bool operator!=(const PoolFormat &o) const { return !(*this == o); }
};
inline const PoolFormat PoolFormat::None{std::nullopt};
inline const PoolFormat PoolFormat::FP8{ElementType::F8E4M3FN};
inline const PoolFormat PoolFormat::I8{ElementType::I8};
inline const PoolFormat PoolFormat::I4{ElementType::I4};

/// "none", "fp8" (f8E4M3FN, as the reports have always named it), or the
/// code type's name ("i8", "i4").
std::string poolFormatName(PoolFormat format);
/// Inverse of poolFormatName, also taking "f8E4M3FN" and any paged code
/// type's name; std::nullopt (with `error` naming the known ones) for
/// anything else.
std::optional<PoolFormat> parsePoolFormat(std::string_view name,
                                          std::string &error);

/// How the first stage ranks pools for a query q (rotated as the keys are).
///   Mean      q . p_g, the shipped select (score + topk + expand).
///   MaxAware  q . p_g + a ||q|| r_g, with r_g = max_s ||k_{gP+s} - p_g||
///             (p_g the stored pooled key, dequantized; r_g one f32 per
///             pool, 4 more bytes per pool): with a = 1 an upper bound on
///             max_s q . k_{gP+s} (Cauchy-Schwarz), so a pool holding one
///             strong token is not averaged away. Not a shipped op: ranked
///             in float64 on the host, then expanded (and refined by the
///             compiled indexpool.refine).
enum class FirstStage { Mean, MaxAware };
/// "mean", "max-aware".
const char *firstStageName(FirstStage stage);

/// How MaxAware stores r_g: F32 (4 bytes per pool), or E5M2 (1 byte: the
/// f8E5M2 value at or above r_g, so A = 1 stays an upper bound; radii above
/// 57344, the format's largest, saturate there).
enum class RadiusFormat { F32, E5M2 };
/// "f32", "e5m2".
const char *radiusFormatName(RadiusFormat format);
/// Bytes per pool of a radius in `format`.
int64_t radiusBytes(RadiusFormat format);
/// The smallest f8E5M2 value >= x (x >= 0; 57344 above the range).
float roundUpToE5M2(double x);

struct PoolingOptions {
  int64_t poolSize = 4;
  PoolFormat format = PoolFormat::None;
  /// Hadamard-rotate the pooled keys (and the queries): D must be a power of
  /// two (callers zero-pad).
  bool rotate = false;
  /// Pooling scores: all zero (equal weights) or ||k_t||.
  bool normScores = false;
  /// Query-aware pooling scores when non-empty: scores[t] = gate . k_t
  /// ([dim] f32, e.g. fitted by indexpool-calibrate --gate from recorded
  /// queries); excludes normScores. The pool op takes any scores: this
  /// changes what feeds it, not the op.
  std::vector<float> gate;
  /// How select ranks the pools, and the weight a of MaxAware's bound.
  FirstStage firstStage = FirstStage::Mean;
  double boundWeight = 1.0;
  RadiusFormat radiusFormat = RadiusFormat::F32;
  /// Optional bias added to the scores as the pool op does: [P] or [P, D]
  /// f32 (biasShape empty: none).
  std::vector<int64_t> biasShape;
  std::vector<float> bias;
};

/// The entries a page of the I4 pools holds (the production page's 64).
constexpr int64_t kI4PageEntries = 64;

/// Bytes a pooled key of `dim` stored channels takes in `format` (codes and
/// scale; no radius).
int64_t pooledKeyBytes(PoolFormat format, int64_t dim);

/// Pooled keys as compiled code produced them.
struct PooledKeys {
  int64_t groups = 0;
  int64_t dim = 0;
  PoolFormat format = PoolFormat::None;
  /// None: the pooled keys [G, D] f32. Codes: their bit patterns
  /// (ref::encodeCode), one a byte [G, D] (paged ones are stored packed),
  /// and the scales [G].
  std::vector<float> values;
  std::vector<uint8_t> codes;
  std::vector<float> scales;
  /// MaxAware: r_g per pool as stored (radiusFormat's value), [G] (empty
  /// otherwise).
  std::vector<float> radii;
  /// Paged codes (PoolFormat::paged): the pages compress_paged wrote
  /// (kI4PageEntries entries a page, pool g at slot g), which select_paged
  /// reads; `codes` and `scales` are unpacked from them.
  std::vector<int8_t> pages;
  /// Paged codes: the D of the pages, dim rounded up to a whole number of
  /// bytes (an odd dim of codes two a byte gets a zero channel, which adds
  /// nothing to a score).
  int64_t pageDim = 0;

  /// The pooled keys in float64: the f32 values, or codes * scale.
  Matrix dequantized() const;
};

/// Pools `keys` ([tokens, dim] f32, dim a power of two when rotating) with
/// the compiled pool (+ hadamard) or compress; with FirstStage::MaxAware
/// also each pool's radius r_g, in float64 in the stored (rotated) space,
/// rounded to f32.
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

/// Token keys as a token-level tier would store them: each key (rotated
/// first when `rotate`) quantized per vector to `format` (FP8 or I8 codes
/// plus one f32 scale, the quantize op), dequantized and rotated back, by
/// the compiled hadamard -> quantize -> dequantize -> hadamard. `keys` is
/// [tokens, dim] f32 (dim a power of two when rotating); `dequantized`
/// gets the same shape.
Status tokenTierKeys(const std::vector<float> &keys, int64_t tokens,
                     int64_t dim, bool rotate, PoolFormat format,
                     std::vector<float> &dequantized);

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
/// P). `tokens` gets [M, k] i32, -1 where fewer pools qualify. With
/// FirstStage::MaxAware or PoolFormat::I4 the pools are ranked on the host
/// in float64 (see FirstStage) and only refine is compiled.
Status selectTokens(const PooledKeys &pooled, const std::vector<float> &queries,
                    int64_t rows, const std::vector<int32_t> &validPools,
                    int64_t k, const PoolingOptions &options,
                    std::vector<int32_t> &tokens,
                    const RefineOptions &refine = RefineOptions());

} // namespace indexpool::fidelity

#endif // INDEXPOOL_FIDELITY_POOLEDSELECTION_H
