//===- IndexPoolOps.td - indexpool operations -------------*- tablegen -*-===//
//
// The ops of the dialect: twelve on dense tensors, three on the paged
// serving layout (docs/serving-layout.md). Element types and shapes are checked by the
// C++ verifiers (IndexPoolOps.cpp) so that every message names its operand.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_OPS_TD
#define INDEXPOOL_OPS_TD

include "IndexPoolDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Every op computes new tensors from its operands and nothing else: Pure lets
// CSE and DCE treat them like arith ops.
class IndexPool_Op<string mnemonic, list<Trait> traits = []> :
    Op<IndexPool_Dialect, mnemonic, !listconcat([Pure], traits)> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// pool
//===----------------------------------------------------------------------===//

def IndexPool_PoolOp : IndexPool_Op<"pool"> {
  let summary = "softmax-weighted pooling of every pool_size consecutive keys";
  let description = [{
    Merges every `pool_size` (P) consecutive keys into one. `keys` is `[T, D]`;
    `scores` is `[T]` (one weight per token) or `[T, D]` (one per channel);
    the optional `bias` is `[P]` or `[P, D]`, the same granularity as
    `scores`. With G = floor(T / P) (the last T mod P tokens are not pooled):

    ```
    w[g, s(, d)]  = softmax_s((scores[g*P+s(, d)] + bias[s(, d)]) / temperature)
    pooled[g, d]  = sum_s w[g, s(, d)] * keys[g*P+s, d]
    ```

    The softmax is computed stably, as exp((x - max_s x) / temperature) /
    sum with the max taken before dividing, and accumulates in f32; `pooled`
    is rounded (to nearest even) to its element type, f32 or the keys' type.
    A -inf logit gets weight 0; a group holding a NaN or +inf logit, or only
    -inf logits, gets NaN weights and a NaN pooled key, and NaN or infinite
    keys propagate (0 * inf = NaN) (docs/robustness.md, "Special values").
    `weights` (`[G, P]` or `[G, P, D]`, f32) are kept for reconstruction and
    analysis. `pool_size` is a power of two in [2, 64]; `temperature` is
    finite and at least 2^-126 (1.17549435e-38), so that 1 / temperature is
    a finite f32.

    The scores are the caller's: by default the model's own gate logits
    (GLM-5.3-Flash's kpool recipe, with its learned slot bias). A documented
    alternative is the *query-aware gate* `scores[t] = g . keys[t]`, with
    `g` `[D]` (and a slot bias) fitted from recorded queries by
    `indexpool-calibrate --gate=mean-query --gate-output=g.npy`: it weights
    each pool toward the tokens the queries score high, and on the measured
    keys it raised two-stage recall by 9 points at the same bytes
    (docs/fidelity.md, "First-stage selection"). It changes no op: the
    scores are computed before the call (`indexpool.gate_scores(keys, g)`
    in Python).

    Example:

    ```mlir
    %pooled, %w = indexpool.pool %keys, %scores bias(%ape)
        {pool_size = 4 : i64, temperature = 2.0 : f32}
        : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>)
          -> (tensor<256x128xbf16>, tensor<256x4x128xf32>)
    ```
  }];
  let arguments = (ins IndexPool_KeyTensor:$keys,
                       IndexPool_KeyTensor:$scores,
                       Optional<IndexPool_KeyTensor>:$bias,
                       I64Attr:$pool_size,
                       DefaultValuedAttr<F32Attr, "1.0">:$temperature);
  let results = (outs IndexPool_KeyTensor:$pooled,
                      IndexPool_F32Tensor:$weights);
  let assemblyFormat = [{
    $keys `,` $scores
    (`bias` `(` custom<OperandInParens>($bias)^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// hadamard
//===----------------------------------------------------------------------===//

def IndexPool_HadamardOp : IndexPool_Op<"hadamard"> {
  let summary = "orthonormal Sylvester-Hadamard rotation of the last dimension";
  let description = [{
    `result[n, :] = input[n, :] · H_D / sqrt(D)` where D, the size of the last
    dimension, is a power of two no larger than 1024 and H_D is the Sylvester
    Hadamard matrix (H_1 = [1], H_2n = [[H_n, H_n], [H_n, -H_n]]). The
    rotation is orthonormal and self-inverse. Any rank >= 1 is accepted, so
    that queries `[M, H, D]` can be rotated like keys `[N, D]`. The result
    has the input's shape and element type f32 or the input's type. The
    butterflies compute in f32: a sum beyond the f32 range becomes +-inf and
    inf - inf NaN (docs/robustness.md, "Special values").

    Example:

    ```mlir
    %y = indexpool.hadamard %x : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
    ```
  }];
  let arguments = (ins IndexPool_KeyTensor:$input);
  let results = (outs IndexPool_KeyTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// quantize / dequantize
//===----------------------------------------------------------------------===//

def IndexPool_QuantizeOp : IndexPool_Op<"quantize"> {
  let summary = "quantizes vectors to i8 or f8E4M3FN with one scale per vector";
  let description = [{
    `input` is `[N, D]` (f32, f16 or bf16). The element type of `codes` picks
    the format: qmax = 127 for `i8`, 448 for `f8E4M3FN`.

    ```
    absmax[n]  = max(max_d |input[n, d]|, min_absmax)
    scales[n]  = absmax[n] / qmax            (pow2_scale: 2^ceil(log2(absmax[n] / qmax)))
    codes[n,d] = convert(clamp(input[n, d] / scales[n], -qmax, qmax))
    ```

    The quotient is an f32 division (rounded to f32) and the conversion
    rounds it to nearest even. `min_absmax` (default 1e-4) keeps
    all-zero vectors finite; it must be finite and at least qmax * 2^-126
    (i8: 127 * 2^-126 ~= 1.4929e-36, f8E4M3FN: 448 * 2^-126 ~= 5.2662e-36),
    so that every scale is a normal f32. The max propagates NaN: a row
    holding NaN or an infinity gets scale NaN and NaN codes (0x7F, never
    0xFF, for f8E4M3FN; 0 for i8) (docs/robustness.md, "Special values").

    Example:

    ```mlir
    %q, %scale = indexpool.quantize %x {pow2_scale}
        : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
    ```
  }];
  let arguments = (ins IndexPool_KeyTensor:$input,
                       UnitAttr:$pow2_scale,
                       DefaultValuedAttr<F32Attr, "1.0e-4">:$min_absmax);
  let results = (outs IndexPool_QuantTensor:$codes,
                      IndexPool_F32Tensor:$scales);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
}

def IndexPool_DequantizeOp : IndexPool_Op<"dequantize"> {
  let summary = "decodes quantized vectors with their per-vector scales";
  let description = [{
    `result[n, d] = float(codes[n, d]) * scales[n]`, rounded to the result's
    element type (f32, f16 or bf16). `codes` is `[N, D]` of `i8` or
    `f8E4M3FN`, `scales` is `[N]` f32. A NaN code or scale gives NaN (in
    bf16 / f16 the canonical positive NaN 0x7FC0 / 0x7E00), so a row
    quantized from NaN or infinite values dequantizes to NaN
    (docs/robustness.md, "Special values").

    Example:

    ```mlir
    %x = indexpool.dequantize %q, %scale
        : (tensor<256x128xf8E4M3FN>, tensor<256xf32>) -> tensor<256x128xf32>
    ```
  }];
  let arguments = (ins IndexPool_QuantTensor:$codes,
                       IndexPool_F32Tensor:$scales);
  let results = (outs IndexPool_KeyTensor:$result);
  let assemblyFormat = [{
    $codes `,` $scales attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// residual / reconstruct
//===----------------------------------------------------------------------===//

def IndexPool_ResidualOp : IndexPool_Op<"residual"> {
  let summary = "difference between every key and its pooled key";
  let description = [{
    `result[g*P+s, d] = keys[g*P+s, d] - pooled[g, d]` for g < G, s < P, with
    `keys` `[T, D]`, `pooled` `[G, D]`, G = floor(T / P); the result has G*P
    rows (the unpooled tail is dropped).

    Example:

    ```mlir
    %r = indexpool.residual %keys, %pooled {pool_size = 4 : i64}
        : (tensor<1024x128xf32>, tensor<256x128xf32>) -> tensor<1024x128xf32>
    ```
  }];
  let arguments = (ins IndexPool_KeyTensor:$keys,
                       IndexPool_KeyTensor:$pooled,
                       I64Attr:$pool_size);
  let results = (outs IndexPool_KeyTensor:$result);
  let assemblyFormat = [{
    $keys `,` $pooled attr-dict `:` functional-type(operands, results)
  }];
}

def IndexPool_ReconstructOp : IndexPool_Op<"reconstruct"> {
  let summary = "expands pooled keys back to tokens, optionally adding residuals";
  let description = [{
    `result[g*P+s, d] = pooled[g, d] (+ residual[g*P+s, d])`. Without a
    residual this is the best single estimate of the P original keys; its
    error is what the fidelity report measures. `pooled` is `[G, D]`, the
    residual and the result `[G*P, D]`.

    Example:

    ```mlir
    %k = indexpool.reconstruct %pooled residual(%r) {pool_size = 4 : i64}
        : (tensor<256x128xf32>, tensor<1024x128xf32>) -> tensor<1024x128xf32>
    ```
  }];
  let arguments = (ins IndexPool_KeyTensor:$pooled,
                       Optional<IndexPool_KeyTensor>:$residual,
                       I64Attr:$pool_size);
  let results = (outs IndexPool_KeyTensor:$result);
  let assemblyFormat = [{
    $pooled
    (`residual` `(` custom<OperandInParens>($residual)^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// score / topk / expand
//===----------------------------------------------------------------------===//

def IndexPool_ScoreOp : IndexPool_Op<"score"> {
  let summary = "indexer logits of queries against cached keys";
  let description = [{
    ```
    logits[m, n] = sum_h weights[m, h] * max(0, s[n] * sum_d query[m, h, d] * keys[n, d])
    ```

    `query` is `[M, H, D]` (f32, f16, bf16 or f8E4M3FN), `weights` `[M, H]`
    f32, `keys` `[N, D]` of a key or quantized type, `logits` `[M, N]` f32.
    Quantized keys require `scales(%s)` (`[N]` f32); without scales s = 1.
    The max is IEEE maximum: NaN stays NaN and max(-0, +0) = +0; products and
    sums compute in f32 and overflow to +-inf (docs/robustness.md, "Special
    values").

    Example:

    ```mlir
    %logits = indexpool.score %q, %w, %keys scales(%s)
        : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xf8E4M3FN>,
           tensor<256xf32>) -> tensor<1x256xf32>
    ```
  }];
  let arguments = (ins IndexPool_QueryTensor:$query,
                       IndexPool_F32Tensor:$weights,
                       IndexPool_CacheTensor:$keys,
                       Optional<IndexPool_F32Tensor>:$scales);
  let results = (outs IndexPool_F32Tensor:$logits);
  let assemblyFormat = [{
    $query `,` $weights `,`
    $keys (`scales` `(` custom<OperandInParens>($scales)^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def IndexPool_TopKOp : IndexPool_Op<"topk"> {
  let summary = "the k largest logits of every row, with their column indices";
  let description = [{
    Per row m, among the columns n < valid[m] (all N without `valid`): the
    `k` largest values in descending order; equal values put the smaller n
    first; NaN ranks below every number. Where fewer than k columns qualify,
    the remaining slots hold value -inf and index -1. `logits` is `[M, N]`
    f32, `valid` `[M]` i32, results `[M, k]` f32 and i32; 0 < k <= N, also
    when N is dynamic (N is the row capacity: shorter rows use `valid`), and
    N <= 2^31 - 1 (the indices are i32).

    Example:

    ```mlir
    %vals, %idx = indexpool.topk %logits valid(%len) {k = 64 : i64}
        : (tensor<4x1024xf32>, tensor<4xi32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
    ```
  }];
  let arguments = (ins IndexPool_F32Tensor:$logits,
                       Optional<IndexPool_I32Tensor>:$valid,
                       I64Attr:$k);
  let results = (outs IndexPool_F32Tensor:$values,
                      IndexPool_I32Tensor:$indices);
  let assemblyFormat = [{
    $logits
    (`valid` `(` custom<OperandInParens>($valid)^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def IndexPool_ExpandOp : IndexPool_Op<"expand"> {
  let summary = "expands selected pool indices to the token indices they cover";
  let description = [{
    `tokens[m, j*P+s] = indices[m, j] < 0 ? -1 : indices[m, j]*P + s`;
    `indices` is `[M, K]` i32 and `tokens` `[M, K*P]` i32, with K * P <= 2^31
    (the token indices are i32).

    An index whose tokens do not fit in i32, `indices[m, j] >
    (2^31 - 1 - (P - 1)) / P`, expands to -1 like a negative one (padding
    of topk), never to wrapped token indices.

    Example:

    ```mlir
    %tok = indexpool.expand %idx {pool_size = 4 : i64}
        : (tensor<4x64xi32>) -> tensor<4x256xi32>
    ```
  }];
  let arguments = (ins IndexPool_I32Tensor:$indices, I64Attr:$pool_size);
  let results = (outs IndexPool_I32Tensor:$tokens);
  let assemblyFormat = [{
    $indices attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Fused ops
//===----------------------------------------------------------------------===//

def IndexPool_CompressOp : IndexPool_Op<"compress"> {
  let summary = "fused pool -> [hadamard] -> quantize";
  let description = [{
    Exactly `pool` (pooled rounded to the keys' element type), then
    `hadamard` when `rotate` is set (rounded to the keys' element type), then
    `quantize`, roundings included. Operands and properties are those of
    `pool` and `quantize` (with their bounds on `temperature` and
    `min_absmax`); the results are the codes `[G, D]`, the scales
    `[G]` and the pooling weights `[G, P(, D)]`. With `rotate`, D must be a
    power of two no larger than 1024. The special-value rules of the three
    ops apply in turn: a group with NaN or infinite keys or logits ends as a
    row of NaN codes with scale NaN (docs/robustness.md, "Special values").

    Example:

    ```mlir
    %q, %scale, %w = indexpool.compress %keys, %scores bias(%b)
        {pool_size = 4 : i64, rotate, pow2_scale}
        : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>)
          -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>)
    ```
  }];
  let arguments = (ins IndexPool_KeyTensor:$keys,
                       IndexPool_KeyTensor:$scores,
                       Optional<IndexPool_KeyTensor>:$bias,
                       I64Attr:$pool_size,
                       DefaultValuedAttr<F32Attr, "1.0">:$temperature,
                       UnitAttr:$rotate,
                       UnitAttr:$pow2_scale,
                       DefaultValuedAttr<F32Attr, "1.0e-4">:$min_absmax);
  let results = (outs IndexPool_QuantTensor:$codes,
                      IndexPool_F32Tensor:$scales,
                      IndexPool_F32Tensor:$weights);
  let assemblyFormat = [{
    $keys `,` $scores
    (`bias` `(` custom<OperandInParens>($bias)^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def IndexPool_SelectOp : IndexPool_Op<"select", [AttrSizedOperandSegments]> {
  let summary = "fused score -> topk -> expand (token indices only)";
  let description = [{
    Scores the queries against the pooled keys, keeps the `k` best pools per
    row (among `valid[m]` pools when given) and expands them to the `k * P`
    token indices they cover: `tokens` is `[M, k * pool_size]` i32, -1 where
    fewer than k pools qualify. Operands are those of `score` and `topk`;
    every token index fits i32: N * pool_size <= 2^31.

    Example:

    ```mlir
    %tok = indexpool.select %q, %w, %keys scales(%s) valid(%len)
        {k = 512 : i64, pool_size = 4 : i64}
        : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<4096x128xf8E4M3FN>,
           tensor<4096xf32>, tensor<1xi32>) -> tensor<1x2048xi32>
    ```
  }];
  let arguments = (ins IndexPool_QueryTensor:$query,
                       IndexPool_F32Tensor:$weights,
                       IndexPool_CacheTensor:$keys,
                       Optional<IndexPool_F32Tensor>:$scales,
                       Optional<IndexPool_I32Tensor>:$valid,
                       I64Attr:$k,
                       I64Attr:$pool_size);
  let results = (outs IndexPool_I32Tensor:$tokens);
  let assemblyFormat = [{
    $query `,` $weights `,` $keys
    (`scales` `(` custom<OperandInParens>($scales)^ `)`)?
    (`valid` `(` custom<OperandInParens>($valid)^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def IndexPool_RefineOp : IndexPool_Op<"refine"> {
  let summary = "re-scores candidate tokens on their keys, keeps the k best";
  let description = [{
    The second stage of a two-stage selection: `candidates` `[M, C]` i32
    holds token ids per query row (e.g. the tokens of `select` over pooled
    keys, c x k of them for c x k / P pools), `keys` `[T, D]` the token keys.
    For each row m and candidate c, with t = candidates[m, c]:

    ```
    logits[m, c] = 0 <= t < T ? score(query, weights, keys, scales)[m, t] : NaN
    i            = topk(logits, k).indices[m, j]
    tokens[m, j] = 0 <= candidates[m, i] < T ? candidates[m, i] : -1
    ```

    A candidate in [0, T) is scored exactly as `score` scores key row t for
    query row m: the same f32 arithmetic in the same order (dot product,
    scale, relu, weight, summed over h in h order), so its logit is
    bit-identical to `score`'s. Any other id (the padding -1, or any t
    outside [0, T)) is padding: its logit is NaN and its key row is never
    read. The logits are then ranked exactly as `topk` ranks them
    (descending, equal values to the earlier candidate, NaN below every
    number): `tokens[m, j]` is the candidate of the j-th, -1 where that
    candidate is padding. Duplicate candidates are scored twice and may
    both be kept. With `candidates` = [0, T) on every row, `refine` gives
    exactly `topk(score(...))`'s indices.

    `query` is `[M, H, D]` (f32, f16, bf16 or f8E4M3FN), `weights` `[M, H]`
    f32, `keys` `[T, D]` of a key or quantized type; quantized keys require
    `scales(%s)` (`[T]` f32), full-precision keys take none. `tokens` is
    `[M, k]` i32, with 0 < k <= C, also when C is dynamic (checked at run
    time), T <= 2^31 - 1 (the token ids are i32) and C <= 2^31 - 1 (a row's
    candidates are ranked by i32 positions, as topk's columns). Refine is its own
    fused form: on the CPU one pass gathers and scores the candidates into
    `[M, C]` logits, then topk and a take; on the GPU a gather-score, the
    topk and a take kernel.

    Example:

    ```mlir
    %tok = indexpool.refine %q, %w, %cand, %keys {k = 512 : i64}
        : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1x4096xi32>,
           tensor<65536x128xbf16>) -> tensor<1x512xi32>
    ```
  }];
  let arguments = (ins IndexPool_QueryTensor:$query,
                       IndexPool_F32Tensor:$weights,
                       IndexPool_I32Tensor:$candidates,
                       IndexPool_CacheTensor:$keys,
                       Optional<IndexPool_F32Tensor>:$scales,
                       I64Attr:$k);
  let results = (outs IndexPool_I32Tensor:$tokens);
  let assemblyFormat = [{
    $query `,` $weights `,` $candidates `,` $keys
    (`scales` `(` custom<OperandInParens>($scales)^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// The paged serving layout (docs/serving-layout.md)
//===----------------------------------------------------------------------===//

// The properties that say where entries are in a page.
def IndexPool_PageLayoutArgs {
  dag args = (ins DefaultValuedAttr<I64Attr, "64">:$page_entries,
                  OptionalAttr<TypeAttr>:$codes,
                  UnitAttr:$scales_first);
}

def IndexPool_CompressPagedOp : IndexPool_Op<"compress_paged"> {
  let summary = "compress into the pages of a paged cache, one slot per group";
  let description = [{
    `compress` of `keys` `[T, D]` (operands and properties as `compress`),
    then the codes and the scale of group `g` written into `pages` at
    `slots[g]` (`slots` `[G]` i64, `G = floor(T / P)`): page
    `slots[g] / E`, entry `slots[g] % E`. A negative slot skips its group
    (the write mask). The result is `pages` with those entries written and
    every other byte unchanged (destination-passing style: bufferization
    writes in place); the pooling weights are not kept.

    `pages` is `[pages, E * (D + 4)]` i8, one row of bytes per page: the
    `E = page_entries` (default 64) entries' codes, `E x D` bytes, then their
    f32 scales, `4 * E` bytes little-endian (with `scales_first`, the scales
    first). `codes` is the code type, `f8E4M3FN` (default), `i8`, `i4` or
    `f4E2M1FN`. `i4` codes are those of `quantize` with qmax = 7 (in
    [-7, 7]), two's complement; `f4E2M1FN` codes (OCP FP4: 0, 0.5, 1, 1.5,
    2, 3, 4, 6 and their negatives, no NaN: a NaN row's codes are +0 and its
    scale NaN) those of `quantize` with qmax = 6, rounded to nearest even.
    Both are 4 bits, two a byte: code `2i` in bits 3..0 of byte `i`, code
    `2i + 1` in bits 7..4; an entry's codes are then `D / 2` bytes, a page
    `E * (D / 2 + 4)` bytes, and D must be even. At D = 128 and E = 64 a
    page is 8448 bytes (4352 with 4-bit codes), the production layout. Slots must be
    below `pages * E` and distinct; `indexpool-run` checks them at run time
    (docs/serving-layout.md).

    Example:

    ```mlir
    %pages2 = indexpool.compress_paged %keys, %scores bias(%b)
        into %pages at %slots {pool_size = 4 : i64, rotate, pow2_scale}
        : (tensor<4096x128xbf16>, tensor<4096xf32>, tensor<4xf32>,
           tensor<1024x8448xi8>, tensor<1024xi64>) -> tensor<1024x8448xi8>
    ```
  }];
  let arguments = !con(
      (ins IndexPool_KeyTensor:$keys,
           IndexPool_KeyTensor:$scores,
           Optional<IndexPool_KeyTensor>:$bias,
           IndexPool_PagesTensor:$pages,
           IndexPool_I64Tensor:$slots,
           I64Attr:$pool_size,
           DefaultValuedAttr<F32Attr, "1.0">:$temperature,
           UnitAttr:$rotate,
           UnitAttr:$pow2_scale,
           DefaultValuedAttr<F32Attr, "1.0e-4">:$min_absmax),
      IndexPool_PageLayoutArgs.args);
  let results = (outs IndexPool_PagesTensor:$result);
  let assemblyFormat = [{
    $keys `,` $scores
    (`bias` `(` custom<OperandInParens>($bias)^ `)`)?
    `into` $pages `at` $slots attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The code type: `codes`, f8E4M3FN when absent.
    ::mlir::Type getCodesType();
  }];
}

def IndexPool_SelectPagedOp : IndexPool_Op<"select_paged"> {
  let summary = "select through block tables: pooled entries, then the tail";
  let description = [{
    For a batch of `B` sequences with `S` query rows each (`S > 1`:
    speculative decoding): `query` `[B, S, H, D]`, head `weights`
    `[B, S, H]` f32, the `pages` of `compress_paged` (same layout
    properties), each sequence's page ids in order in `block_table`
    `[B, max_pages]` i32, and `lengths` `[B, S]` i32, the tokens query row
    `(b, s)` sees. For a row of length `L`, its `n = floor(L / P)` pooled
    entries (entry `j` at page `block_table[b, j / E]`, entry `j % E`) are
    scored as `score` does, the `k` best kept as `topk` does (ties to the
    smaller entry, NaN lowest) and expanded as `expand` does; then the
    `L mod P` tail tokens `n*P .. L-1`, which have no pooled entry, are
    appended. `tokens` is `[B, S, k * P + P - 1]` i32: `k * P` expanded
    tokens (-1 for empty top-k slots), then the tail tokens and -1 after
    them. `0 < k <= max_pages * E` when `max_pages` is static: the block
    table must be wide enough to hold `k` entries (the two-stage recipe's
    first stage keeps `C * k` entries, so its table needs `C * k / E`
    columns even for a shorter sequence; pad with any page id, padding is
    never read). A length whose `n` exceeds `max_pages * E`, or a page id outside
    the pages among the `ceil(n / E)` a row uses, is an error that
    `indexpool-run` reports at run time; page ids after those are never
    read.

    Example:

    ```mlir
    %tok = indexpool.select_paged %q, %w pages(%pages)
        block_table(%table) lengths(%len) {k = 512 : i64, pool_size = 4 : i64}
        : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<1024x8448xi8>,
           tensor<8x128xi32>, tensor<8x1xi32>) -> tensor<8x1x2051xi32>
    ```
  }];
  let arguments = !con(
      (ins IndexPool_QueryTensor:$query,
           IndexPool_F32Tensor:$weights,
           IndexPool_PagesTensor:$pages,
           IndexPool_I32Tensor:$block_table,
           IndexPool_I32Tensor:$lengths,
           I64Attr:$k,
           I64Attr:$pool_size),
      IndexPool_PageLayoutArgs.args);
  let results = (outs IndexPool_I32Tensor:$tokens);
  let assemblyFormat = [{
    $query `,` $weights `pages` `(` $pages `)`
    `block_table` `(` $block_table `)` `lengths` `(` $lengths `)`
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The code type: `codes`, f8E4M3FN when absent.
    ::mlir::Type getCodesType();
  }];
}

def IndexPool_AppendPagedOp : IndexPool_Op<"append_paged"> {
  let summary = "decode-time append: complete groups into pages, keep the tail";
  let description = [{
    One decode step for `B` sequences: `n` new tokens each, `keys`
    `[B, n, D]` and gate `scores` `[B, n]` or `[B, n, D]`; the tails
    `tail_keys` `[B, P - 1, D]` and `tail_scores` `[B, P - 1]` or
    `[B, P - 1, D]` (of the keys' and scores' types); `lengths` `[B]` i32,
    the tokens each sequence held before (its tail is the last `L mod P` of
    them); the `pages` and `block_table` `[B, max_pages]` i32 of
    `select_paged`; `bias` and the properties of `compress`. Per sequence,
    the tail tokens and the new ones in order; each group of `P` they
    complete (group `g` = tokens `g*P .. g*P+P-1`) is compressed as
    `compress` does and written at entry `g` of the sequence; the tokens
    left over become the new tail, at its first rows (later rows keep their
    values). Results: the pages, the tail keys and the tail scores. The
    caller adds `n` to its lengths. A prefill with `compress_paged` followed
    by any appends leaves the pages exactly as one `compress_paged` of the
    whole sequence does. A sequence whose groups reach beyond its table is
    an error that `indexpool-run` reports at run time.

    Example:

    ```mlir
    %pages2, %tk2, %ts2 = indexpool.append_paged %keys, %scores
        tail(%tk, %ts) lengths(%len) into %pages block_table(%table)
        {pool_size = 4 : i64, rotate}
        : (tensor<8x1x128xbf16>, tensor<8x1xbf16>, tensor<8x3x128xbf16>,
           tensor<8x3xbf16>, tensor<8xi32>, tensor<1024x8448xi8>,
           tensor<8x128xi32>)
          -> (tensor<1024x8448xi8>, tensor<8x3x128xbf16>, tensor<8x3xbf16>)
    ```
  }];
  let arguments = !con(
      (ins IndexPool_KeyTensor:$keys,
           IndexPool_KeyTensor:$scores,
           Optional<IndexPool_KeyTensor>:$bias,
           IndexPool_KeyTensor:$tail_keys,
           IndexPool_KeyTensor:$tail_scores,
           IndexPool_I32Tensor:$lengths,
           IndexPool_PagesTensor:$pages,
           IndexPool_I32Tensor:$block_table,
           I64Attr:$pool_size,
           DefaultValuedAttr<F32Attr, "1.0">:$temperature,
           UnitAttr:$rotate,
           UnitAttr:$pow2_scale,
           DefaultValuedAttr<F32Attr, "1.0e-4">:$min_absmax),
      IndexPool_PageLayoutArgs.args);
  let results = (outs IndexPool_PagesTensor:$result,
                      IndexPool_KeyTensor:$new_tail_keys,
                      IndexPool_KeyTensor:$new_tail_scores);
  let assemblyFormat = [{
    $keys `,` $scores (`bias` `(` custom<OperandInParens>($bias)^ `)`)?
    `tail` `(` $tail_keys `,` $tail_scores `)` `lengths` `(` $lengths `)`
    `into` $pages `block_table` `(` $block_table `)`
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The code type: `codes`, f8E4M3FN when absent.
    ::mlir::Type getCodesType();
  }];
}

def IndexPool_RefinePagedOp : IndexPool_Op<"refine_paged"> {
  let summary = "re-scores candidate tokens on a paged token tier, keeps the k best";
  let description = [{
    The second stage of a two-stage selection on the paged layout: `refine`
    with its keys in pages. The *token tier* is a paged cache of one entry
    per token (docs/serving-layout.md, "The token tier"): entry `t` of a
    sequence is its token `t`, at page `block_table[b, t / E]`, entry
    `t % E`, the layout of `compress_paged`'s pages (same properties; `E =
    page_entries`). Written by `compress_paged` and `append_paged` with
    `pool_size = 1` and `page_entries = E`: with `E` = P times the pooled
    pages' entries, token `t`'s page is its pool's page, so one block table
    serves both tiers.

    For a batch of `B` sequences with `S` query rows each: `query`
    `[B, S, H, D]`, `weights` `[B, S, H]` f32, `candidates` `[B, S, C]` i32
    (token ids per query row, e.g. `select_paged`'s tokens with `k` times
    `refine` more pools than kept), the token tier's `pages`, `block_table`
    `[B, max_pages]` i32 and `lengths` `[B, S]` i32. For query row
    `(b, s)` of length `L` and candidate `c`, with `t = candidates[b, s, c]`:

    ```
    logits[c]      = 0 <= t < L ? score of token t's entry : NaN
    i              = topk(logits, k).indices[j]
    tokens[b, s, j] = logits[i] is a candidate's ? candidates[b, s, i] : -1
    ```

    A candidate in `[0, L)` is scored exactly as `select_paged` scores an
    entry (codes times scale, ReLU, head weights, summed over h in h order;
    bit-identical to `score` over the decoded entries); any other id (the
    padding -1, a token beyond the row's length) is padding: NaN, never
    read, -1 in `tokens`. The logits are ranked as `topk` ranks them
    (descending, equal values to the earlier candidate, NaN below every
    number). Duplicate candidates are scored twice and may both be kept.
    `tokens` is `[B, S, k]` i32 with `0 < k <= C` (also when C is dynamic:
    checked at run time) and C <= 2^31 - 1. A length beyond `max_pages * E`, or a page id
    outside the pages for a candidate that is scored, is an error that
    `indexpool-run` reports at run time.

    Example (P = 4: the token tier's pages hold 4 x 64 tokens, the pages of
    a pooled cache of 64 entries):

    ```mlir
    %cand = indexpool.select_paged %q, %w pages(%pools)
        block_table(%table) lengths(%len) {k = 2048 : i64, pool_size = 4 : i64}
        : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<1024x8448xi8>,
           tensor<8x128xi32>, tensor<8x1xi32>) -> tensor<8x1x8195xi32>
    %tok = indexpool.refine_paged %q, %w, %cand pages(%tokens)
        block_table(%table) lengths(%len) {k = 2048 : i64, page_entries = 256 : i64}
        : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<8x1x8195xi32>,
           tensor<1024x33792xi8>, tensor<8x128xi32>, tensor<8x1xi32>)
          -> tensor<8x1x2048xi32>
    ```
  }];
  let arguments = !con(
      (ins IndexPool_QueryTensor:$query,
           IndexPool_F32Tensor:$weights,
           IndexPool_I32Tensor:$candidates,
           IndexPool_PagesTensor:$pages,
           IndexPool_I32Tensor:$block_table,
           IndexPool_I32Tensor:$lengths,
           I64Attr:$k),
      IndexPool_PageLayoutArgs.args);
  let results = (outs IndexPool_I32Tensor:$tokens);
  let assemblyFormat = [{
    $query `,` $weights `,` $candidates `pages` `(` $pages `)`
    `block_table` `(` $block_table `)` `lengths` `(` $lengths `)`
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The code type: `codes`, f8E4M3FN when absent.
    ::mlir::Type getCodesType();
  }];
}

#endif // INDEXPOOL_OPS_TD
