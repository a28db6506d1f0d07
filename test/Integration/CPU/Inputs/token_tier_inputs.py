#!/usr/bin/env python3
"""Writes the .npy inputs of token-tier.mlir into OUTDIR: one sequence of
T = 512 keys [512, 64] with gate scores [512], the pooled pages' slots
(group g at slot g: P = 4, E = 32, 4 pages) and the token tier's (token t
at slot t: E = 128, the same 4 pages), both page arrays zeroed, a query
[1, 1, 16, 64] with head weights, the block table [0, 1, 2, 3] and the
length 509 (127 pooled entries and one tail token). With --all-candidates,
also candidates = [0, 509) then -1 padding, [1, 1, 512].

Usage: token_tier_inputs.py OUTDIR [--all-candidates]
"""
import os
import sys

import numpy as np


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(26)
    t, d, h, length = 512, 64, 16, 509
    # Keys with a slowly drifting mean, as neighbouring index keys are alike,
    # plus per-token noise: pooling then keeps some of the signal.
    drift = np.cumsum(rng.standard_normal((t, d)) * 0.3, axis=0)
    arrays = {
        "keys": drift + rng.standard_normal((t, d)),
        "scores": rng.standard_normal(t),
        "q": rng.standard_normal((1, 1, h, d)),
        "w": np.abs(rng.standard_normal((1, 1, h))),
    }
    for name, array in arrays.items():
        np.save(os.path.join(outdir, name + ".npy"), array.astype(np.float32))
    np.save(os.path.join(outdir, "slots.npy"), np.arange(t // 4, dtype=np.int64))
    np.save(os.path.join(outdir, "tslots.npy"), np.arange(t, dtype=np.int64))
    np.save(os.path.join(outdir, "pools.npy"), np.zeros((4, 32 * (d + 4)), np.int8))
    np.save(os.path.join(outdir, "tier.npy"), np.zeros((4, 128 * (d + 4)), np.int8))
    np.save(os.path.join(outdir, "table.npy"), np.arange(4, dtype=np.int32)[None, :])
    np.save(os.path.join(outdir, "len.npy"), np.array([[length]], np.int32))
    if "--all-candidates" in sys.argv[2:]:
        candidates = np.full((1, 1, t), -1, np.int32)
        candidates[0, 0, :length] = np.arange(length, dtype=np.int32)
        np.save(os.path.join(outdir, "all.npy"), candidates)


if __name__ == "__main__":
    main()
