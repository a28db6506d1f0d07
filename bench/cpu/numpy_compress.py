"""compress in NumPy: the anchor a Python user would write first.

bf16 keys (held as float32 values rounded to bf16), per-channel scores plus a
per-slot bias, softmax over P = 4 slots, Hadamard rotation, FP8 e4m3 codes
with a power-of-two scale. Prints `numpy_compress median_ms`.
Usage: python3 numpy_compress.py T D REPS
"""
import sys
import time

import numpy as np

P = 4


def round_bf16(x):
    bits = x.astype(np.float32).view(np.uint32)
    bits = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (bits & np.uint32(0xFFFF0000)).view(np.float32)


def hadamard(x):
    g, d = x.shape
    h = 1
    while h < d:
        y = x.reshape(g, d // (2 * h), 2, h)
        a, b = y[:, :, 0, :], y[:, :, 1, :]
        x = np.stack((a + b, a - b), axis=2).reshape(g, d)
        h *= 2
    return x * np.float32(1.0 / np.sqrt(d))


def encode_e4m3(x):
    """float32 in [-448, 448] -> e4m3fn codes (uint8), round to nearest even."""
    a = np.minimum(np.abs(x), np.float32(448.0))
    sign = np.signbit(x).astype(np.uint8) << np.uint8(7)
    bits = a.view(np.uint32)
    normal = ((bits + np.uint32(0x7FFFF) + ((bits >> np.uint32(20)) & np.uint32(1)))
              >> np.uint32(20)) - np.uint32(120 << 3)
    sub = np.rint(a * np.float32(512.0)).astype(np.uint32)
    code = np.where(a < np.float32(2.0 ** -6), sub, normal).astype(np.uint8)
    return code | sign


def compress(keys, scores, bias):
    t, d = keys.shape
    g = t // P
    x = scores[: g * P].reshape(g, P, d) + bias
    e = np.exp(x - x.max(axis=1, keepdims=True))
    w = e / e.sum(axis=1, keepdims=True)
    pooled = round_bf16((w * keys[: g * P].reshape(g, P, d)).sum(axis=1))
    rotated = round_bf16(hadamard(pooled))
    absmax = np.maximum(np.abs(rotated).max(axis=1), np.float32(1e-4))
    scale = np.exp2(np.ceil(np.log2(absmax / np.float32(448.0)))).astype(np.float32)
    return encode_e4m3(rotated / scale[:, None]), scale, w


def main():
    t, d, reps = (int(v) for v in sys.argv[1:4])
    rng = np.random.default_rng(1)
    keys = round_bf16(rng.standard_normal((t, d), dtype=np.float32))
    scores = rng.standard_normal((t, d), dtype=np.float32)
    bias = rng.standard_normal((P, d), dtype=np.float32)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        compress(keys, scores, bias)
        times.append((time.perf_counter() - start) * 1e3)
    print(f"numpy_compress {sorted(times)[len(times) // 2]:.3f}")


if __name__ == "__main__":
    main()
