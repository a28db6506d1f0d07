#!/usr/bin/env python3
"""Seeded synthetic indexer keys and queries with LLM-like structure.

Writes KEYS.npy and QUERIES.npy, both [T, D] float32, for indexpool-fidelity:
  - correlated neighbours: keys drift slowly along the sequence (an AR(1)
    process over tokens), so consecutive keys - the ones a pool merges - are
    similar but not equal;
  - a few outlier channels with a large, persistent magnitude;
  - an attention sink: token 0 is a large key every query aligns with;
  - local bursts: short runs of tokens sharing a strong common direction;
  - queries correlated with recent keys (they look back at their context);
  - optionally (--plant-slot=P), a position-dependent pattern for
    indexpool-calibrate: the last key of every group of P gets an extra
    random component, so it carries more attention mass than its neighbours
    and a pool bias towards that slot pays off. The default streams are
    unchanged (the pattern has its own generator and leaves the queries be).

  synthetic.py --tokens=2048 --dim=64 --seed=0 [--plant-slot=P
      [--plant-strength=4]] OUT_DIR  (writes OUT_DIR/keys.npy,
  OUT_DIR/queries.npy)
"""
import argparse
import os

import numpy as np


def plant_slot(keys, pool_size, strength, seed):
    """Adds strength * N(0, 1) per channel to keys[t], t % P == P - 1."""
    rng = np.random.default_rng([seed, pool_size])
    salient = np.arange(pool_size - 1, keys.shape[0], pool_size)
    keys = keys.astype(np.float64)
    keys[salient] += strength * rng.standard_normal((len(salient), keys.shape[1]))
    return keys.astype(np.float32)


def synthesize(tokens, dim, seed):
    rng = np.random.default_rng(seed)
    # Slow drift: k_t = rho k_{t-1} + sqrt(1 - rho^2) e_t.
    rho = 0.9
    noise = rng.standard_normal((tokens, dim))
    keys = np.empty((tokens, dim))
    keys[0] = noise[0]
    for t in range(1, tokens):
        keys[t] = rho * keys[t - 1] + np.sqrt(1 - rho * rho) * noise[t]
    # Outlier channels.
    outliers = rng.choice(dim, size=max(1, dim // 16), replace=False)
    keys[:, outliers] *= 6.0
    keys[:, outliers] += 3.0
    # Local bursts: 8 to 32 tokens pushed along one direction.
    for _ in range(max(1, tokens // 128)):
        start = int(rng.integers(1, tokens))
        length = int(rng.integers(8, 33))
        direction = rng.standard_normal(dim)
        direction /= np.linalg.norm(direction)
        keys[start:start + length] += 4.0 * direction
    # Attention sink.
    sink = rng.standard_normal(dim)
    sink /= np.linalg.norm(sink)
    keys[0] = 12.0 * sink
    # Queries: a blend of recent keys, the sink direction and fresh noise.
    queries = np.empty((tokens, dim))
    for t in range(tokens):
        recent = keys[max(0, t - 64):t + 1].mean(axis=0)
        queries[t] = 0.5 * recent + 0.5 * sink + rng.standard_normal(dim)
    return keys.astype(np.float32), queries.astype(np.float32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--tokens", type=int, default=2048)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plant-slot", type=int, default=0, metavar="P",
                        help="make the last key of every group of P salient")
    parser.add_argument("--plant-strength", type=float, default=4.0)
    args = parser.parse_args()
    keys, queries = synthesize(args.tokens, args.dim, args.seed)
    if args.plant_slot > 0:
        keys = plant_slot(keys, args.plant_slot, args.plant_strength, args.seed)
    os.makedirs(args.out_dir, exist_ok=True)
    np.save(os.path.join(args.out_dir, "keys.npy"), keys)
    np.save(os.path.join(args.out_dir, "queries.npy"), queries)


if __name__ == "__main__":
    main()
