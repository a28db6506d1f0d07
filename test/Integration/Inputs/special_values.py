#!/usr/bin/env python3
"""Writes the .npy inputs of the special-values tests into OUTDIR.

Every tensor is random and non-zero (fixed seeds), with NaN, infinities,
-0, subnormals, huge values and exact rounding midpoints planted in named
rows; the comments say what each planted row exercises. Usage:
  special_values.py OUTDIR
"""
import os
import sys

import numpy as np

F32 = np.float32
INF = np.inf
NAN = np.nan


def normal(rng, shape, scale=1.0):
    x = (rng.standard_normal(shape) * scale).astype(F32)
    x[x == 0] = 1  # never zeros
    return x


def save(outdir, name, array):
    np.save(os.path.join(outdir, name + ".npy"), array)


def pool_inputs(outdir, rng):
    # Large logits: scores 100 + 0.01 N(0,1) over T = 0.01, so that
    # (x - max) / T ~ N(0,1) but x / T ~ 1e4: exp(x / T) overflows unless the
    # max is subtracted first.
    save(outdir, "large.keys", normal(rng, (64, 128)))
    save(outdir, "large.scores", (100 + normal(rng, (64, 128), 0.01)).astype(F32))
    save(outdir, "large.tscores", (100 + normal(rng, (64,), 0.01)).astype(F32))

    # Tiny temperature 1e-37: x / T overflows f32 for |x| > 3.4e-1 (inf - inf
    # = NaN when dividing first). Group 0: two equal maxima -> 1/2, 1/2, 0,
    # 0 over keys 1.5 and 2.5 -> pooled 2.0. Group 3: all equal -> 1/4 each
    # over keys 1, 2, 3, 6 -> pooled 3.0. Group 1 has a -inf slot.
    keys = normal(rng, (16, 64))
    keys[0, :], keys[1, :] = 1.5, 2.5
    for s, v in enumerate([1, 2, 3, 6]):
        keys[12 + s, :] = v
    scores = normal(rng, (16,), 10)
    scores[0:4] = [100, 100, 99, 98]
    scores[4:8] = [-5, 7, -INF, 6]
    scores[12:16] = 3
    save(outdir, "tiny.keys", keys)
    save(outdir, "tiny.scores", scores)

    # Non-finite logits and keys, per channel: group 0 channel 5 has a NaN
    # score, group 1 channel 7 a +inf score, group 2 channel 9 only -inf
    # scores: NaN weights and NaN pooled there. Group 3: an inf key in a
    # slot of weight 0 (score -inf) at channel 3 -> 0 * inf = NaN; a -inf key
    # of weight > 0 at channel 4 -> -inf.
    keys = normal(rng, (16, 64))
    scores = normal(rng, (16, 64))
    scores[1, 5] = NAN
    scores[6, 7] = INF
    scores[8:12, 9] = -INF
    scores[14, 3] = -INF
    keys[14, 3] = INF
    keys[13, 4] = -INF
    save(outdir, "nan.keys", keys)
    save(outdir, "nan.scores", scores)


def compress_inputs(outdir, rng):
    # 8 groups of 4 tokens, D = 128. Group 1: a NaN key; group 2: an inf
    # key; group 3: huge keys (the rotation overflows); group 4: subnormal
    # keys only (the scale is min_absmax / qmax = 2^-126); group 5: a
    # channel whose scores are all -inf. Rows 1, 2, 3, 5 quantize to NaN
    # codes (0x7F / 0) with scale NaN.
    keys = normal(rng, (32, 128))
    keys.view(np.uint32)[5, 17] = 0xFFC00000  # -NaN
    keys[9, 100] = INF
    keys[12:16, :] = np.sign(normal(rng, (4, 128))) * F32(3.0e38)
    keys[16:20, :] = normal(rng, (4, 128), 1e-40)
    scores = normal(rng, (32, 128))
    scores[20:24, 33] = -INF
    save(outdir, "compress.keys", keys)
    save(outdir, "compress.scores", scores)


def quantize_inputs(outdir, rng):
    x = normal(rng, (8, 64))
    # Row 1: a NaN with the sign bit set; x / NaN keeps it on x86, so the
    # codes are 0x7F only if the encoder drops the sign.
    x.view(np.uint32)[1, 3] = 0xFFC00000
    x[2, 10] = INF
    x[3, 0] = -INF
    x[4, :] = np.clip(normal(rng, (64,), 1e38), -3.4e38, 3.4e38)
    x[5, :] = normal(rng, (64,), 1e-40)  # subnormal f32
    # Row 6, f8 midpoints: absmax 448 -> scale 1 (pow2 and plain), so the
    # codes are the values rounded: 17 -> 16 and 19 -> 20 (ulp 2 in [16,
    # 32)), 1.0625 -> 1 and 1.1875 -> 1.25 (ulp 1/8), 3 * 2^-10 -> 2^-8 and
    # 2^-10 -> 0 and 5 * 2^-10 -> 2^-8 (subnormal quantum 2^-9), 432 -> 448
    # (between 416, odd, and 448), 0.53125 -> 0.5.
    row6 = [448, -448, 17, 19, -17, -19, 1.0625, 1.1875,
            3 * 2.0**-10, 2.0**-10, 5 * 2.0**-10, 432, -432, 0.53125]
    x[6, :] = np.clip(x[6, :], -4, 4)
    x[6, :len(row6)] = row6
    # Row 7, i8 midpoints: absmax 127 -> scale 1: 2.5 -> 2, 3.5 -> 4,
    # -2.5 -> -2, -3.5 -> -4, 0.5 -> 0, 1.5 -> 2, 126.5 -> 126, -126.5 ->
    # -126, -0.5 -> 0.
    row7 = [127, 2.5, 3.5, -2.5, -3.5, 0.5, 1.5, 126.5, -126.5, -0.5]
    x[7, :] = np.clip(x[7, :], -4, 4)
    x[7, :len(row7)] = row7
    save(outdir, "quantize.x", x)

    # dequantize midpoints: code 1 (column 0) and -1 (column 1) times the
    # row scale give the scale itself. bf16: 1 + 2^-8 -> 1 (even), 1 + 3 *
    # 2^-8 -> 1 + 2^-6, 3 * 2^-134 -> 2^-132 (subnormal, 1.5 quanta -> 2),
    # (2 - 2^-8) * 2^127 -> inf. f16: 1 + 2^-11 -> 1, 1 + 3 * 2^-11 ->
    # 1 + 2^-9, 3 * 2^-25 -> 2^-23, 65520 -> inf. Row 8: scale -NaN, whose
    # products must still be stored as the positive canonical NaN.
    codes = rng.integers(-127, 128, size=(9, 16)).astype(np.int8)
    codes[codes == 0] = 5
    codes[:, 0], codes[:, 1] = 1, -1
    scales = np.array([1 + 2.0**-8, 1 + 3 * 2.0**-8, 3 * 2.0**-134,
                       (2 - 2.0**-8) * 2.0**127, 1 + 2.0**-11,
                       1 + 3 * 2.0**-11, 3 * 2.0**-25, 65520, 0], dtype=F32)
    scales.view(np.uint32)[8] = 0xFFC00000  # -NaN
    save(outdir, "dequant.codes", codes)
    save(outdir, "dequant.scales", scales)


def hadamard_inputs(outdir, rng):
    # Row 0 starts a, a, -a, -a with a = 1.5 * 2^127: stage 1 gives
    # inf, 0, -inf, 0 in f32 and stage 2 NaN, 0, inf, 0 (exactly 0, 0, 4a,
    # 0 in double). Row 1: huge values of random sign, overflowing.
    x = normal(rng, (4, 64))
    a = F32(1.5 * 2.0**127)
    x[0, :4] = [a, a, -a, -a]
    x[1, :] = np.sign(normal(rng, (64,))) * F32(2.0e38)
    save(outdir, "hadamard.x", x)


def score_inputs(outdir, rng):
    # Queries all positive, so that sums of positive products overflow in
    # any order (the CPU's lanes and the GPU's chain agree). Key rows: 0 has
    # a NaN (logit NaN: relu(NaN) = NaN), 1 a +inf (logit inf), 2 all -0
    # (logit +0), 3 all 1e38 (every head's dot overflows: inf), 4 all 1e37
    # (the dot overflows only as a whole, ~6e38, then times the scale 2^-10
    # stays inf), 5 has scale NaN, 6 all -inf (relu -> 0: logit 0).
    q = (np.abs(normal(rng, (1, 2, 64))) + F32(0.1)).astype(F32)
    q = np.minimum(q, F32(3)).astype(F32)
    w = np.array([[0.75, 0.5]], dtype=F32)
    keys = normal(rng, (64, 64))
    keys[0, 5] = NAN
    keys[1, 0] = INF
    keys[2, :] = -0.0
    keys[3, :] = 1e38
    keys[4, :] = 1e37
    keys[6, :] = -INF
    scales = (rng.uniform(1e-3, 1e-2, size=(64,))).astype(F32)
    scales[4] = 2.0**-10
    scales[5] = NAN
    save(outdir, "score.q", q)
    save(outdir, "score.w", w)
    save(outdir, "score.keys", keys)
    save(outdir, "score.scales", scales)


def e4m3(code):
    """The value of an e4m3 (FN) code: no infinities, S.1111.111 is NaN."""
    sign = -1.0 if code & 0x80 else 1.0
    exponent, mantissa = (code >> 3) & 15, code & 7
    if exponent == 15 and mantissa == 7:
        return NAN
    if exponent == 0:
        return sign * mantissa / 8 * 2.0**-6
    return sign * (1 + mantissa / 8) * 2.0**(exponent - 7)


# The channels that hold the codes under test: both halves of a pair of the
# first lane's first word (0, 1) and the last lane's last word (29, with
# D = 32: lane t of the tensor-core score reads channels [8t, 8t + 8)).
FP8_CODE_CHANNELS = (0, 1, 29)


def fp8_code_inputs(outdir, rng):
    # Every e4m3 code (subnormals, -0, both NaNs, +-448) as a key value in
    # each channel of FP8_CODE_CHANNELS: row r holds code (r + 85 i) % 256 in
    # channel i of them, small random values (|x| < 2^-4) elsewhere. Query
    # codes.qI is ~1 in channel I (sign alternating by head, so negative key
    # values give positive products on odd heads) and < 2^-20 elsewhere: a
    # logit is ~ the code in channel I times sum of weights x query, and
    # decoding any code wrong (the smallest subnormal, 2^-9, included) moves
    # it far beyond the tolerance.
    t, h, d = 256, 16, 32
    keys = np.clip(normal(rng, (t, d), 2.0**-6), -2.0**-4, 2.0**-4).astype(F32)
    for i, channel in enumerate(FP8_CODE_CHANNELS):
        keys[:, channel] = [e4m3((r + 85 * i) % 256) for r in range(t)]
    save(outdir, "codes.keys", keys)
    save(outdir, "codes.w", rng.uniform(0.5, 1.5, size=(1, h)).astype(F32))
    save(outdir, "codes.scales", rng.uniform(0.5, 2.0, size=(t,)).astype(F32))
    for channel in FP8_CODE_CHANNELS:
        q = normal(rng, (1, h, d), 2.0**-24)
        q[0, :, channel] = [(-1) ** head * (1 + head / 16) for head in range(h)]
        save(outdir, f"codes.q{channel}", q.astype(F32))


def fused_head_inputs(outdir, rng):
    # The logit's head sum is fma(w, relu, logit), heads in order: a term
    # that alone leaves f32 (-2 x 2e38) is fused with the running logit
    # (3e38) into a finite -1e38. Head h reads channel h only. Key row 0:
    # 3e38, 2e38 (logit -1e38); row 1: 1e38, 1e38 (-1e38, no term
    # overflows); row 2: 3e38, -1 (relu 0: 3e38).
    q = np.zeros((1, 2, 16), dtype=F32)
    q[0, 0, 0] = 1
    q[0, 1, 1] = 1
    w = np.array([[1, -2]], dtype=F32)
    keys = normal(rng, (3, 16), 2.0**-60)
    keys[:, 0:2] = [[3e38, 2e38], [1e38, 1e38], [3e38, -1]]
    save(outdir, "fused.q", q)
    save(outdir, "fused.w", w)
    save(outdir, "fused.keys", keys)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(20261202)
    pool_inputs(outdir, rng)
    compress_inputs(outdir, rng)
    quantize_inputs(outdir, rng)
    hadamard_inputs(outdir, rng)
    score_inputs(outdir, rng)
    fp8_code_inputs(outdir, rng)
    fused_head_inputs(outdir, rng)


if __name__ == "__main__":
    main()
