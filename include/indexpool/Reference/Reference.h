//===- Reference.h - float64 reference evaluator of the ops -----*- C++ -*-===//
//
// One free function per op of docs/IndexPoolOps.md: the arithmetic runs in float64 and
// each result is rounded once, at the end, to its element type (weights,
// scales, logits and top-k values to f32). This is the oracle that
// `indexpool-run --verify` and the tests compare the kernels against.
//
// Each op has a check function that returns why its operands do not fit
// together ("" when they do), naming the operand and the expected shape in the
// letters of the spec. Checks read shapes and properties only, so tensors
// without data (shapes only) can be checked. The ops assert that check, and
// that every tensor holds its data: callers holding sizes only known at run
// time call the check first and report the message.
//
// The reference is deliberately more permissive than the verifiers: any
// pool_size >= 1 and any power-of-two Hadamard size work here. Sizes that are
// merely dynamic-valid never crash: T need not be a multiple of P (the tail is
// ignored), k may exceed N (slots padded with -inf / -1), and valid lengths
// are clamped to [0, N].
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_REFERENCE_REFERENCE_H
#define INDEXPOOL_REFERENCE_REFERENCE_H

#include "indexpool/Reference/HostTensor.h"

#include <random>
#include <string>

namespace indexpool::ref {

//===----------------------------------------------------------------------===//
// indexpool.pool
//===----------------------------------------------------------------------===//

struct PoolResult {
  HostTensor pooled;  // [G, D], pooledType
  HostTensor weights; // [G, P] or [G, P, D], f32
};

/// keys [T, D]; scores [T] or [T, D]; bias (may be null) [P] or [P, D], with
/// the granularity of scores; poolSize >= 1; temperature finite and > 0.
std::string checkPool(const HostTensor &keys, const HostTensor &scores,
                      const HostTensor *bias, int64_t poolSize,
                      double temperature);
/// G = floor(T / P). The weights are a stable softmax over the P slots of
/// (scores + bias) / temperature; pooled sums the UNROUNDED weights times the
/// keys and is rounded once. A group whose logits are all -inf (or any NaN)
/// gets NaN weights, as the formula does.
PoolResult pool(const HostTensor &keys, const HostTensor &scores,
                const HostTensor *bias, int64_t poolSize, double temperature,
                ElementType pooledType);

//===----------------------------------------------------------------------===//
// indexpool.hadamard
//===----------------------------------------------------------------------===//

/// x has rank >= 1 and a last size D that is a power of two.
std::string checkHadamard(const HostTensor &x);
/// y = x · H_D / sqrt(D) along the last dimension, Sylvester ordering.
HostTensor hadamard(const HostTensor &x, ElementType resultType);

//===----------------------------------------------------------------------===//
// indexpool.quantize / indexpool.dequantize
//===----------------------------------------------------------------------===//

struct QuantizeResult {
  HostTensor q;     // [N, D], quantizedType
  HostTensor scale; // [N], f32
};

/// x [N, D]; quantizedType I8 or F8E4M3FN; minAbsmax at least qmax * 2^-126.
std::string checkQuantize(const HostTensor &x, ElementType quantizedType,
                          double minAbsmax);
/// q = roundTo(clamp(x / scale, -qmax, qmax)) with the f32-rounded scale of
/// quantizationScale(). absmax propagates NaN: a row holding NaN or an
/// infinity gets scale NaN and NaN codes (f8 0x7F, i8 0), see
/// docs/robustness.md. Also I4 (qmax 7, NaN code 0), for compress into
/// the paged layout's i4 codes.
QuantizeResult quantize(const HostTensor &x, ElementType quantizedType,
                        bool pow2Scale, double minAbsmax = 1e-4);

/// q [N, D]; scale [N].
std::string checkDequantize(const HostTensor &q, const HostTensor &scale);
/// x[n, d] = q[n, d] * scale[n].
HostTensor dequantize(const HostTensor &q, const HostTensor &scale,
                      ElementType resultType);

//===----------------------------------------------------------------------===//
// indexpool.residual / indexpool.reconstruct
//===----------------------------------------------------------------------===//

/// keys [T, D]; pooled [floor(T / P), D]; poolSize >= 1.
std::string checkResidual(const HostTensor &keys, const HostTensor &pooled,
                          int64_t poolSize);
/// r[g*P+s, d] = keys[g*P+s, d] - pooled[g, d]: [G*P, D].
HostTensor residual(const HostTensor &keys, const HostTensor &pooled,
                    int64_t poolSize, ElementType resultType);

/// pooled [G, D]; residual (may be null) [G*P, D]; poolSize >= 1.
std::string checkReconstruct(const HostTensor &pooled,
                             const HostTensor *residual, int64_t poolSize);
/// k[g*P+s, d] = pooled[g, d] (+ residual[g*P+s, d]): [G*P, D].
HostTensor reconstruct(const HostTensor &pooled, const HostTensor *residual,
                       int64_t poolSize, ElementType resultType);

//===----------------------------------------------------------------------===//
// indexpool.score / indexpool.topk / indexpool.expand
//===----------------------------------------------------------------------===//

/// q [M, H, D]; w [M, H]; keys [N, D]; scales (may be null) [N].
std::string checkScore(const HostTensor &q, const HostTensor &w,
                       const HostTensor &keys, const HostTensor *scales);
/// logits[m, n] = sum_h w[m, h] * max(0, s[n] * sum_d q[m, h, d] * keys[n, d]),
/// f32, overflowing like f32 at every step. The max is the IEEE maximum: a
/// NaN dot product stays NaN and max(-0, +0) is +0.
HostTensor score(const HostTensor &q, const HostTensor &w,
                 const HostTensor &keys, const HostTensor *scales);

struct TopKResult {
  HostTensor values;  // [M, k], f32
  HostTensor indices; // [M, k], i32
};

/// logits [M, N]; valid (may be null) [M]; k >= 0.
std::string checkTopK(const HostTensor &logits, const HostTensor *valid,
                      int64_t k);
/// Per row, among columns n < clamp(valid[m], 0, N): the k largest values in
/// descending order, equal values by smaller n, NaN below every number (NaNs
/// fill remaining slots in index order). Empty slots: -inf and index -1.
TopKResult topk(const HostTensor &logits, const HostTensor *valid, int64_t k);

/// idx [M, K]; poolSize >= 1.
std::string checkExpand(const HostTensor &idx, int64_t poolSize);
/// tok[m, j*P+s] = idx[m, j] < 0 ? -1 : idx[m, j]*P + s: [M, K*P], i32.
HostTensor expand(const HostTensor &idx, int64_t poolSize);

//===----------------------------------------------------------------------===//
// Fused ops: indexpool.compress / indexpool.select
//===----------------------------------------------------------------------===//

struct CompressOptions {
  int64_t poolSize = 4;
  double temperature = 1.0;
  bool rotate = false;
  ElementType quantizedType = ElementType::F8E4M3FN;
  bool pow2Scale = false;
  double minAbsmax = 1e-4;
};

struct CompressResult {
  HostTensor q;       // [G, D], options.quantizedType
  HostTensor scale;   // [G], f32
  HostTensor weights; // [G, P] or [G, P, D], f32
};

/// checkPool, plus a power-of-two D when rotating and checkQuantize's rules.
std::string checkCompress(const HostTensor &keys, const HostTensor &scores,
                          const HostTensor *bias,
                          const CompressOptions &options);
/// pool (rounded to the keys' type) -> hadamard if rotate (rounded to the
/// keys' type) -> quantize.
CompressResult compress(const HostTensor &keys, const HostTensor &scores,
                        const HostTensor *bias, const CompressOptions &options);

/// checkScore, plus valid (may be null) [M], k >= 0 and poolSize >= 1.
std::string checkSelect(const HostTensor &q, const HostTensor &w,
                        const HostTensor &keys, const HostTensor *scales,
                        const HostTensor *valid, int64_t k, int64_t poolSize);
/// score -> topk -> expand: tokens [M, k*P], i32.
HostTensor select(const HostTensor &q, const HostTensor &w,
                  const HostTensor &keys, const HostTensor *scales,
                  const HostTensor *valid, int64_t k, int64_t poolSize);

//===----------------------------------------------------------------------===//
// indexpool.refine
//===----------------------------------------------------------------------===//

/// q [M, H, D]; w [M, H]; candidates [M, C]; keys [T, D]; scales (may be
/// null) [T]; k >= 0. (The verifier's scales-iff-quantized rule is the
/// callers'.)
std::string checkRefine(const HostTensor &q, const HostTensor &w,
                        const HostTensor &candidates, const HostTensor &keys,
                        const HostTensor *scales, int64_t k);
/// logits [M, C], f32: score's logit of query row m and key row t =
/// candidates[m, c] when 0 <= t < T, NaN (row never read) otherwise.
HostTensor refineLogits(const HostTensor &q, const HostTensor &w,
                        const HostTensor &candidates, const HostTensor &keys,
                        const HostTensor *scales);
/// tokens [M, k], i32: topk of refineLogits, each selected column c taken
/// as candidates[m, c], -1 where that candidate is padding (or the slot is
/// empty, k > C).
HostTensor refine(const HostTensor &q, const HostTensor &w,
                  const HostTensor &candidates, const HostTensor &keys,
                  const HostTensor *scales, int64_t k);

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

// The distributions are computed here from the raw engine output, not with
// <random>'s distributions (whose results differ between standard
// libraries), so a seed gives the same tensor everywhere.

/// N(0, stddev^2) samples rounded to `type` (never all zero: if rounding
/// zeroes every element, the first becomes 1).
HostTensor randomNormal(ElementType type, std::vector<int64_t> shape,
                        std::mt19937_64 &rng, double stddev = 1.0);
/// Uniform integers in [lo, hi] (inclusive, within int32), type I32.
HostTensor randomInt32(std::vector<int64_t> shape, int64_t lo, int64_t hi,
                       std::mt19937_64 &rng);

} // namespace indexpool::ref

#endif // INDEXPOOL_REFERENCE_REFERENCE_H
