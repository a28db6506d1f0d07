#!/usr/bin/env python3
"""Writes the .npy inputs of mma-ops.mlir's refine == topk(score) check into
OUTDIR: a random query [3, 16, 64], head weights [3, 16] and keys [500, 64]
(f32, rounded to bf16 by indexpool-run), candidates = [0, 500) on every row.
Usage: mma_inputs.py OUTDIR
"""
import os
import sys

import numpy as np


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(12)
    m, h, d, t = 3, 16, 64, 500
    arrays = {
        "q": rng.standard_normal((m, h, d)),
        "w": rng.standard_normal((m, h)),
        "keys": rng.standard_normal((t, d)),
    }
    for name, array in arrays.items():
        np.save(os.path.join(outdir, name + ".npy"), array.astype(np.float32))
    np.save(os.path.join(outdir, "candidates.npy"),
            np.tile(np.arange(t, dtype=np.int32), (m, 1)))


if __name__ == "__main__":
    main()
