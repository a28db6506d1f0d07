//===- Kernels.h - the loops of each indexpool op on buffers ----*- C++ -*-===//
//
// One function per computation, on memrefs. The fused ops call the same
// row-level pieces as the ops they fuse, in the same order, which is why
// compress == pool -> hadamard -> quantize and select == score -> topk ->
// expand bit for bit on the CPU; refine scores its candidates with score's
// row arithmetic (emitScoreRows, ScoreRows.h). The GPU kernels
// (IndexPoolToGPU) call the row-level pieces too (slot weights, weighted
// sums, butterflies, row scales).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_COMMON_KERNELS_H
#define INDEXPOOL_LIB_CONVERSION_COMMON_KERNELS_H

#include "Emitter.h"
#include "ScoreRows.h"

#include <optional>

namespace mlir::indexpool::loops {

/// Buffers and properties of a pooling (pool or compress).
struct PoolBuffers {
  Value keys, scores, bias; // bias may be null
  Value weights;            // [G, P] or [G, P, D] f32 result; null: unused
  int64_t poolSize;
  double temperature;
};

/// Softmax over the slots of `x` (scalars or vectors, one per slot) with
/// `temperature`: exp((x - max x) / T) / sum, the max taken over the raw x.
SmallVector<Value> emitSoftmax(Emitter &e, SmallVector<Value> x,
                               double temperature);

/// The softmax weights of the slots of the group whose first token is
/// `first`: scalars for per-token scores, else vectors of `chunk`.
SmallVector<Value> emitSlotWeights(Emitter &e, const PoolBuffers &p,
                                   Value first, std::optional<Chunk> chunk);

/// sum_s w[s] * keys[first + s, chunk], in slot order (mul, then fma).
Value emitWeightedSum(Emitter &e, const PoolBuffers &p, Value first, Chunk c,
                      ArrayRef<Value> w);

/// Pools group `g`: writes its weights and hands every chunk of the pooled
/// key (f32, unrounded) to `sink`.
void emitPoolGroup(Emitter &e, const PoolBuffers &p, Value g,
                   function_ref<void(Chunk, Value pooled)> sink);

/// One Walsh-Hadamard butterfly stage inside an f32 vector: lanes i with
/// bit h clear get x[i] + x[i+h], the others x[i-h] - x[i] (as fma(+-1, ..)).
Value emitButterfly(Emitter &e, Value x, int64_t h);

/// Rotates `row` (an f32 scratch memref of D elements) in place by H_D /
/// sqrt(D), then rounds every element to `roundTo` (kept in f32).
void emitHadamardRow(Emitter &e, Value row, Type roundTo);

/// 2^ceil(log2(absmax / qmax)), exactly (scalar f32).
Value emitPow2Scale(Emitter &e, Value absmax, Value qmax);

/// The f32 scale of a row whose absmax (max'ed with min_absmax) is
/// `absmax`: absmax / qmax or, with `pow2Scale`, emitPow2Scale; NaN when
/// absmax is NaN or +inf (the row then quantizes to NaN codes).
Value emitRowScale(Emitter &e, Value absmax, double qmax, bool pow2Scale);

/// Quantizes one row of D values read through `load` into row `n` of
/// `codes` / `scales`.
struct QuantizeParams {
  bool pow2Scale;
  double minAbsmax;
  /// A code type packed below a byte (i4): the codes are computed into an
  /// i8 row as its bits (Emitter::encodePackedCode), with its qmax. Null:
  /// codes of the row's own element type.
  Type packedCodes = {};
};
void emitQuantizeRow(Emitter &e, function_ref<Value(Chunk)> load, Value dimD,
                     Value codes, Value scales, Value n,
                     const QuantizeParams &params);

/// One group of indexpool.compress: group `g` of `pool` pooled, rounded to
/// the keys' type into `row` (an f32 scratch of D elements), rotated there
/// (`rotate`) and quantized into row `n` of `codes` / `scales`, with the
/// roundings of the unfused pool -> hadamard -> quantize chain. The one code
/// path of compress, compress_paged and append_paged, which is what makes a
/// prefill plus appends write the same bytes as one compress.
void emitCompressGroup(Emitter &e, const PoolBuffers &pool, Value g,
                       bool rotate, const QuantizeParams &params, Value row,
                       Value codes, Value scales, Value n);

/// logits[M, N] of indexpool.score, rows of keys distributed across threads.
void emitScore(Emitter &e, Value query, Value weights, Value keys,
               Value scales, Value logits);

/// Whether the i32 token id `t` is a row of `keys` ([T, D]): 0 <= t < T,
/// as one unsigned comparison.
Value emitIsKeyRow(Emitter &e, Value t, Value keys);

/// logits[M, C] of indexpool.refine: for candidate t = candidates[m, c] in
/// [0, T), the logit of key row t by emitScoreRows (score's arithmetic, bit
/// for bit); NaN for any other t, whose row and scale are not read.
void emitRefineScore(Emitter &e, Value query, Value weights, Value candidates,
                     Value keys, Value scales, Value logits);

/// tokens[m, j] of indexpool.refine: candidates[m, indices[m, j]] when that
/// is a row of `keys`, else -1 (padding, or an empty topk slot).
void emitTakeEntry(Emitter &e, Value candidates, Value keys, Value indices,
                   Value tokens, Value m, Value j);
/// The same for refine_paged's rows ([B*S, C] candidates): a candidate is
/// a token when it is in [0, lengths[m]).
void emitTakeTokenEntry(Emitter &e, Value candidates, Value lengths,
                        Value indices, Value tokens, Value m, Value j);

/// values / indices [M, k] of indexpool.topk (`valid` may be null).
void emitTopK(Emitter &e, Value logits, Value valid, Value values,
              Value indices);

/// tokens[m, j*P .. j*P+P) of indexpool.expand, from indices[m, j].
void emitExpandEntry(Emitter &e, Value indices, Value tokens,
                     int64_t poolSize, Value m, Value j);

/// tokens [M, K*P] of indexpool.expand.
void emitExpand(Emitter &e, Value indices, Value tokens, int64_t poolSize);

/// tokens [M, k] of indexpool.refine from the topk indices [M, k].
void emitTake(Emitter &e, Value candidates, Value keys, Value indices,
              Value tokens);

} // namespace mlir::indexpool::loops

#endif // INDEXPOOL_LIB_CONVERSION_COMMON_KERNELS_H
