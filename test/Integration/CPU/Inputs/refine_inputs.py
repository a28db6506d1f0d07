#!/usr/bin/env python3
"""Writes the .npy inputs of test/Integration/CPU/refine.mlir into OUTDIR.

hand.*: logits known by hand. The query is all ones (H = 1, D = 16, weight
1) and key row t is 0.1 * t in every channel, so candidate t scores 1.6 * t;
key row 2 is NaN. Row 0 holds padding (-1), an id past T = 8 and a
duplicate; row 1 the i32 extremes and another duplicate.

all.*: random queries, weights and keys (bf16-exact values; i8 codes with
scales), and candidates = [0, T) on every row, for refine == topk(score).
Usage:
  refine_inputs.py OUTDIR
"""
import os
import sys

import numpy as np


def save(outdir, name, array):
    np.save(os.path.join(outdir, name + ".npy"), array)


def hand(outdir):
    save(outdir, "hand.q", np.ones((2, 1, 16), np.float32))
    save(outdir, "hand.w", np.ones((2, 1), np.float32))
    keys = np.repeat(np.arange(8, dtype=np.float32)[:, None] * 0.1, 16, axis=1)
    keys[2, 5] = np.nan
    save(outdir, "hand.keys", keys.astype(np.float32))
    save(outdir, "hand.candidates", np.array(
        [[3, -1, 3, 9, 5, 2, 0, 7],
         [-2**31, 6, 2**31 - 1, 1, 1, 4, -5, 8]], np.int32))


def all_tokens(outdir, rng):
    m, h, d, t = 3, 8, 64, 500
    normal = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    save(outdir, "all.q", normal(m, h, d))
    save(outdir, "all.w", normal(m, h))
    save(outdir, "all.keys", normal(t, d))
    save(outdir, "all.codes", rng.integers(-127, 128, (t, d)).astype(np.int8))
    save(outdir, "all.scales",
         (1e-3 + 9e-3 * rng.random(t)).astype(np.float32))
    save(outdir, "all.candidates",
         np.tile(np.arange(t, dtype=np.int32), (m, 1)))


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    hand(outdir)
    all_tokens(outdir, np.random.default_rng(11))


if __name__ == "__main__":
    main()
