#!/usr/bin/env python3
"""How many refined candidates a first stage needs to reach a recall target.

  refine_budget.py DUMP_DIR [--pool-size=4] [--k=256] [--last=256]
      [--recall=0.90] [--mass=0.97] [--first-stage=mean|max-aware]
      [--bound-weight=0.25] [--pooled=mean|i4] [--allocate=C]
      [--token-scan-i4]

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

--pooled=i4 ranks INT4 pooled keys instead, as `indexpool-fidelity
--format=i4` stores them: keys Hadamard-rotated (D zero-padded to a power of
two), pooled, each pooled key quantized to codes in [-7, 7] with one f32
scale (max|x| / 7), max-aware's radius measured against it. --allocate=C
also spends the same bytes per head: starting from C = 4 per head, one more
C at a time to the head whose recall grows most, until the mean C is C, and
prints the mean recall against a uniform C (chosen on the measured positions
themselves: an upper bound on what a per-head C gains). --token-scan-i4
prints, per head, the recall of a one-stage token-level INT4 scan (rotated
keys, codes in [-7, 7], an f16 scale: half a token-level FP8 row's bytes).
"""
import argparse
import glob
import os
import sys

import numpy as np


FACTORS = (1, 2, 3, 4, 6, 8, 10, 12, 15, 16, 20, 23, 24, 26, 28, 32, 40, 48,
           56, 64)


def hadamard(dim):
    """The normalized Sylvester-Hadamard matrix of the next power of two."""
    h = np.ones((1, 1))
    while h.shape[0] < dim:
        h = np.block([[h, h], [h, -h]])
    return h / np.sqrt(h.shape[0])


def quantize_i4(x, scale_type=np.float32):
    """Per-row INT4 codes in [-7, 7] (scale max|x| / 7, rounded to nearest
    even), dequantized."""
    scale = (np.maximum(np.abs(x).max(axis=1), 1e-4) / 7.0).astype(
        scale_type).astype(np.float64)
    return np.clip(np.rint(x / scale[:, None]), -7, 7) * scale[:, None]


def rotated(keys, queries):
    h = hadamard(keys.shape[1])
    pad = lambda a: np.pad(a, ((0, 0), (0, h.shape[0] - a.shape[1])))
    return pad(keys) @ h.T, pad(queries) @ h.T


def token_scan_i4(keys, queries, k, last):
    """Mean recall of the exact top-k by a token-level INT4 scan."""
    rk, rq = rotated(keys, queries)
    stored = quantize_i4(rk, np.float16)
    recalls = []
    for i in range(keys.shape[0] - last, keys.shape[0]):
        exact = np.lexsort((np.arange(i), -(keys[:i] @ queries[i])))[:k]
        approx = np.lexsort((np.arange(i), -(stored[:i] @ rq[i])))[:k]
        recalls.append(len(np.intersect1d(exact, approx)) / len(exact))
    return float(np.mean(recalls))


def allocate(curves, mean_factor):
    """Per-head factors with the given mean: from C = 4 each, one more C
    at a time (up to 64) to the head whose recall grows most; curves are
    [heads, 64] recall at C = 1..64."""
    c = np.full(len(curves), 4)
    while c.sum() < mean_factor * len(curves):
        gain = [curves[h][c[h]] - curves[h][c[h] - 1] if c[h] < 64 else -1
                for h in range(len(curves))]
        c[int(np.argmax(gain))] += 1
    return c


def coverage(keys, queries, p, k, last, stage, weight, pooled_format="mean",
             factors=FACTORS):
    """[queries, len(factors)] recall and mass recall of select + exact
    refine at each factor C (NaN where C x k / P exceeds the pools)."""
    tokens, dim = keys.shape
    groups = tokens // p
    space, query_space = keys, queries
    if pooled_format == "i4":
        space, query_space = rotated(keys, queries)
    grouped = space[:groups * p].reshape(groups, p, space.shape[1])
    pooled = grouped.mean(axis=1)
    if pooled_format == "i4":
        pooled = quantize_i4(pooled)
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
        score = pooled[:valid] @ query_space[i]
        if stage == "max-aware":
            score = score + weight * np.linalg.norm(q) * radius[:valid]
        rank = np.empty(valid, np.int64)
        rank[np.lexsort((np.arange(valid), -score))] = np.arange(valid)
        # Tokens by logit, each with its pool's rank: refine keeps the first
        # k of them whose pool is kept.
        pool_rank = rank[by_logit // p]
        exact_rank = pool_rank[:len(exact)]
        r_row, m_row = [], []
        for c in factors:
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


def smallest_factor(curve, target, factors=FACTORS):
    """The smallest C of `factors` whose value reaches target."""
    for c, value in zip(factors, curve):
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
    parser.add_argument("--pooled", default="mean", choices=("mean", "i4"))
    parser.add_argument("--allocate", type=float)
    parser.add_argument("--token-scan-i4", action="store_true")
    args = parser.parse_args()
    p, k = args.pool_size, args.k
    if p < 1 or k <= 0 or k % p or args.last <= 0 or args.bound_weight < 0:
        sys.exit("refine_budget.py: error: --pool-size, --k (a multiple of "
                 "it), --last must be positive, --bound-weight non-negative")
    if args.allocate is not None and not 4 <= args.allocate <= 64:
        sys.exit("refine_budget.py: error: --allocate takes a mean C in "
                 "[4, 64]")
    # --allocate needs every C up to 64; FACTORS is a subset of them.
    factors = tuple(range(1, 65)) if args.allocate is not None else FACTORS
    heads = sorted(glob.glob(os.path.join(args.dump, "layer*", "head*")))
    if not heads:
        sys.exit(f"refine_budget.py: error: no layer*/head* in {args.dump}")
    curves_r, curves_m = [], []
    at = factors.index(15)
    print("| head | C for recall | C for mass | recall at C = 15 | "
          "mass recall at C = 15 |")
    print("| --- | --- | --- | --- | --- |")
    for head in heads:
        keys = np.load(os.path.join(head, "keys.npy")).astype(np.float64)
        queries = np.load(os.path.join(head, "queries.npy")).astype(np.float64)
        r, m = coverage(keys, queries, p, k, args.last, args.first_stage,
                        args.bound_weight, args.pooled, factors)
        r, m = r.mean(axis=0), m.mean(axis=0)
        curves_r.append(r)
        curves_m.append(m)
        scan = ""
        if args.token_scan_i4:
            scan = (f" token-level INT4 scan: recall "
                    f"{100 * token_scan_i4(keys, queries, k, args.last):.1f}%")
        print(f"| {'/'.join(head.split(os.sep)[-2:])} | "
              f"{smallest_factor(r, args.recall, factors)} | "
              f"{smallest_factor(m, args.mass, factors)} | "
              f"{100 * r[at]:.1f}% | {100 * m[at]:.2f}% |{scan}", flush=True)
    r, m = np.mean(curves_r, axis=0), np.mean(curves_m, axis=0)
    print("mean over heads, C: recall / mass recall: " + ", ".join(
        f"{c}: {100 * a:.1f}% / {100 * b:.2f}%"
        for c, a, b in zip(factors, r, m)
        if np.isfinite(a) and c in FACTORS))
    if args.allocate is not None:
        mean_c = args.allocate
        c = allocate(np.nan_to_num(curves_r, nan=1.0), mean_c)
        spent = np.mean([curves_r[h][c[h] - 1] for h in range(len(c))])
        uniform = int(mean_c)
        print(f"per-head C with mean {mean_c:g} (chosen on the measured "
              f"positions: an upper bound): recall {100 * spent:.1f}% "
              f"against {100 * r[uniform - 1]:.1f}% at C = {uniform} for "
              f"every head; C per head: {' '.join(map(str, c))}")
    shape = np.load(os.path.join(heads[0], "keys.npy"), mmap_mode="r").shape
    tokens, dim = shape
    row = (1 << (dim - 1).bit_length()) + 4
    n = tokens - args.last / 2  # about the mean token count of the queries
    # A pooled key: D' FP8 codes or D' / 2 bytes of INT4 codes, an f32 scale.
    pool_bytes = (row if args.pooled == "mean" else (row - 4) // 2 + 4) + (
        4 if args.first_stage == "max-aware" else 0)
    for name, curve, target in (("recall", r, args.recall),
                                ("mass recall", m, args.mass)):
        c = smallest_factor(curve, target, factors)
        if c is None:
            print(f"mean over heads: {name} >= {target:.2f} not reached "
                  f"up to C = {factors[-1]}")
            continue
        ratio = (n / p * pool_bytes + c * k * row) / (n * row)
        print(f"mean over heads: {name} >= {target:.2f} needs C = {c} "
              f"({c * k // p} pools, {c * k} refined FP8 rows): about "
              f"{ratio:.2f} of a token-level FP8 scan's bytes")

if __name__ == "__main__":
    main()
