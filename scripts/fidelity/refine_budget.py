#!/usr/bin/env python3
"""How many refined candidates a first stage needs to reach a recall target.

  refine_budget.py DUMP_DIR [--pool-size=4] [--k=256] [--last=256]
      [--recall=0.90] [--mass=0.97] [--first-stage=mean|max-aware]
      [--bound-weight=0.25]

With exact refinement, the two-stage selection's recall at refine factor C
is the share of the exact top-k tokens whose pool is among the C x k / P
best-ranked pools (refine keeps every exact top-k token it is given: they
outrank every other candidate), and likewise for the mass. This script
computes that coverage in float64 NumPy for every layer*/head* of a
make-dump.sh dump (pooled keys: the group means, unquantized, unrotated;
the fidelity sections show FP8 and the rotation move recall by under 0.2
point), and prints per head and on the mean over heads the smallest C that
reaches --recall and --mass, with the bytes per query it implies next to a
token-level FP8 scan (D rounded up to a power of two, a pooled key and a
refined FP8 token row each D + 4 bytes, + 4 per pool for max-aware's
radius). An analysis of the first stage's ranking, not of the kernels.
"""
import argparse
import glob
import os
import sys

import numpy as np


FACTORS = (1, 2, 3, 4, 6, 8, 10, 12, 15, 16, 20, 23, 24, 26, 28, 32, 40, 48,
           56, 64)


def coverage(keys, queries, p, k, last, stage, weight):
    """[queries, len(FACTORS)] recall and mass recall of select + exact
    refine at each factor C (NaN where C x k / P exceeds the pools)."""
    tokens, dim = keys.shape
    groups = tokens // p
    grouped = keys[:groups * p].reshape(groups, p, dim)
    pooled = grouped.mean(axis=1)
    radius = np.linalg.norm(grouped - pooled[:, None], axis=2).max(axis=1)
    recalls, masses = [], []
    for i in range(tokens - last, tokens):
        n = (i // p) * p
        valid = n // p
        q = queries[i]
        qk = keys[:n] @ q
        by_logit = np.lexsort((np.arange(n), -qk))
        exact = by_logit[:min(k, n)]
        mass = np.exp((qk - qk.max()) / np.sqrt(dim))
        exact_mass = mass[exact].sum()
        score = pooled[:valid] @ q
        if stage == "max-aware":
            score = score + weight * np.linalg.norm(q) * radius[:valid]
        rank = np.empty(valid, np.int64)
        rank[np.lexsort((np.arange(valid), -score))] = np.arange(valid)
        # Tokens by logit, each with its pool's rank: refine keeps the first
        # k of them whose pool is kept.
        pool_rank = rank[by_logit // p]
        exact_rank = pool_rank[:len(exact)]
        r_row, m_row = [], []
        for c in FACTORS:
            kept = c * k // p
            if kept > valid:
                r_row.append(np.nan)
                m_row.append(np.nan)
                continue
            r_row.append(np.count_nonzero(exact_rank < kept) / len(exact))
            chosen = by_logit[pool_rank < kept][:k]
            m_row.append(mass[chosen].sum() / exact_mass)
        recalls.append(r_row)
        masses.append(m_row)
    return np.array(recalls), np.array(masses)


def smallest_factor(curve, target):
    """The smallest C of FACTORS whose value reaches target."""
    for c, value in zip(FACTORS, curve):
        if value >= target:
            return c
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump")
    parser.add_argument("--pool-size", type=int, default=4)
    parser.add_argument("--k", type=int, default=256)
    parser.add_argument("--last", type=int, default=256)
    parser.add_argument("--recall", type=float, default=0.90)
    parser.add_argument("--mass", type=float, default=0.97)
    parser.add_argument("--first-stage", default="mean",
                        choices=("mean", "max-aware"))
    parser.add_argument("--bound-weight", type=float, default=0.25)
    args = parser.parse_args()
    p, k = args.pool_size, args.k
    if p < 1 or k <= 0 or k % p or args.last <= 0 or args.bound_weight < 0:
        sys.exit("refine_budget.py: error: --pool-size, --k (a multiple of "
                 "it), --last must be positive, --bound-weight non-negative")
    heads = sorted(glob.glob(os.path.join(args.dump, "layer*", "head*")))
    if not heads:
        sys.exit(f"refine_budget.py: error: no layer*/head* in {args.dump}")
    curves_r, curves_m = [], []
    at = FACTORS.index(15)
    print("| head | C for recall | C for mass | recall at C = 15 | "
          "mass recall at C = 15 |")
    print("| --- | --- | --- | --- | --- |")
    for head in heads:
        keys = np.load(os.path.join(head, "keys.npy")).astype(np.float64)
        queries = np.load(os.path.join(head, "queries.npy")).astype(np.float64)
        r, m = coverage(keys, queries, p, k, args.last, args.first_stage,
                        args.bound_weight)
        r, m = r.mean(axis=0), m.mean(axis=0)
        curves_r.append(r)
        curves_m.append(m)
        print(f"| {'/'.join(head.split(os.sep)[-2:])} | "
              f"{smallest_factor(r, args.recall)} | "
              f"{smallest_factor(m, args.mass)} | {100 * r[at]:.1f}% | "
              f"{100 * m[at]:.2f}% |", flush=True)
    r, m = np.mean(curves_r, axis=0), np.mean(curves_m, axis=0)
    print("mean over heads, C: recall / mass recall: " + ", ".join(
        f"{c}: {100 * a:.1f}% / {100 * b:.2f}%"
        for c, a, b in zip(FACTORS, r, m) if np.isfinite(a)))
    shape = np.load(os.path.join(heads[0], "keys.npy"), mmap_mode="r").shape
    tokens, dim = shape
    row = (1 << (dim - 1).bit_length()) + 4
    n = tokens - args.last / 2  # about the mean token count of the queries
    pool_bytes = row + (4 if args.first_stage == "max-aware" else 0)
    for name, curve, target in (("recall", r, args.recall),
                                ("mass recall", m, args.mass)):
        c = smallest_factor(curve, target)
        if c is None:
            print(f"mean over heads: {name} >= {target:.2f} not reached "
                  f"up to C = {FACTORS[-1]}")
            continue
        ratio = (n / p * pool_bytes + c * k * row) / (n * row)
        print(f"mean over heads: {name} >= {target:.2f} needs C = {c} "
              f"({c * k // p} pools, {c * k} refined FP8 rows): about "
              f"{ratio:.2f} of a token-level FP8 scan's bytes")

if __name__ == "__main__":
    main()
