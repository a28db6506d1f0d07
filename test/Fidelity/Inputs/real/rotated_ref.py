#!/usr/bin/env python3
"""fidelity_ref.py's float64 check, for Hadamard-rotated, quantized pools.

  rotated_ref.py KEYS QUERIES TOOL.json [--format=fp8|i8|none]
      [--pool-size=4] [--k=256] [--last=16]
recomputes every metric of `indexpool-fidelity --rotate --format=F`
(uniform scores, no bias) and checks the tool's JSON against it with
fidelity_ref.py's tolerances: D zero-padded to a power of two, pooled keys
(the group mean, f32) rotated by the orthonormal Sylvester Hadamard matrix
(f32), quantized per key as compress does (scale absmax / qmax in f32, codes
of the f32 quotient, round to nearest even); pool scores are the dequantized
keys against the rotated queries; angles and reconstruction are measured in
the rotated space; the exact top-k and the softmax mass use the original keys
and queries.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fidelity_ref as ref  # noqa: E402

MIN_ABSMAX = 1e-4  # compress's, as the quantize op


def f32(x):
    return np.asarray(x, np.float64).astype(np.float32).astype(np.float64)


def hadamard(n):
    h = np.ones((1, 1))
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return h / np.sqrt(n)


def stored_pools(keys, pool_size, fmt, h):
    groups = keys.shape[0] // pool_size
    pooled = f32(keys[:groups * pool_size].reshape(groups, pool_size, -1)
                 .mean(axis=1))
    rotated = f32(pooled @ h)
    if fmt == "none":
        return rotated
    qmax = 448.0 if fmt == "fp8" else 127.0
    scale = f32(np.maximum(np.abs(rotated).max(axis=1), MIN_ABSMAX) / qmax)
    code = np.clip(f32(rotated / scale[:, None]), -qmax, qmax)
    code = ref.round_f8e4m3fn(code) if fmt == "fp8" else np.rint(code)
    return code * scale[:, None]


def selection(keys, queries, pooled, rotated_queries, pool_size, k, last):
    """fidelity_ref.selection, pool scores in the rotated space."""
    tokens, dim = keys.shape
    padded = pooled.shape[1]
    kept = k // pool_size
    # One more rounding per term than fidelity_ref's bound: the rotated,
    # rounded query; the scale applied to the code sum.
    extra = int(np.log2(padded)) + 2
    gamma = (padded + extra) * ref.F32_EPS / (1 - (padded + extra) * ref.F32_EPS)
    rows = []
    for i in range(tokens - last, tokens):
        n = (i // pool_size) * pool_size
        valid = n // pool_size
        q = rotated_queries[i]
        scores = pooled[:valid] @ q
        chosen = ref.top_indices(scores, kept)
        selected = (chosen[:, None] * pool_size + np.arange(pool_size)).ravel()
        qk = keys[:n] @ queries[i]
        exact = ref.top_indices(qk, min(k, n))
        mass = np.exp((qk - qk.max()) / np.sqrt(dim))
        exact_mass = mass[exact].sum()
        recall = len(np.intersect1d(selected, exact)) / len(exact)
        mass_recall = mass[selected].sum() / exact_mass
        slack_recall = slack_mass = 0.0
        if valid > kept:
            bound = gamma * (np.abs(pooled[:valid]) @ np.abs(q))
            order = ref.top_indices(scores, valid)
            inside, outside = order[kept - 1], order[kept]
            if scores[inside] - scores[outside] <= bound[inside] + bound[outside]:
                slack_recall = pool_size / len(exact)
                group = lambda g: mass[g * pool_size:(g + 1) * pool_size].sum()
                slack_mass = (group(inside) + group(outside)) / exact_mass
        rows.append((recall, mass_recall, slack_recall, slack_mass))
    return np.array(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("keys")
    parser.add_argument("queries")
    parser.add_argument("tool_json")
    parser.add_argument("--format", default="fp8", choices=("none", "fp8", "i8"))
    parser.add_argument("--pool-size", type=int, default=4)
    parser.add_argument("--k", type=int, default=256)
    parser.add_argument("--last", type=int, default=16)
    args = parser.parse_args()
    keys = np.load(args.keys).astype(np.float64)
    queries = np.load(args.queries).astype(np.float64)
    tool = json.load(open(args.tool_json))
    dim, p = keys.shape[1], args.pool_size
    padded = 1 << (dim - 1).bit_length()
    h = hadamard(padded)
    pad = lambda x: np.pad(x, ((0, 0), (0, padded - dim)))
    space = f32(pad(keys) @ h)  # the keys as the tool rotates them (f32)
    pooled = stored_pools(pad(keys), p, args.format, h)
    rows = selection(keys, queries, pooled, f32(pad(queries) @ h), p, args.k,
                     args.last)
    failures = []

    def close(name, value, slack):
        got = tool[name]
        ok = abs(got - value) <= slack
        print(f"{name}: tool {got:.9g} ref {value:.9g} slack {slack:.3g} "
              f"{'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(name)

    n = len(rows)
    close("recall", rows[:, 0].mean(), rows[:, 2].sum() / n + 1e-7)
    close("mass_recall", rows[:, 1].mean(), rows[:, 3].sum() / n + 1e-7)
    close("recall_p10", ref.percentile(rows[:, 0], 10), rows[:, 2].max() + 1e-7)
    rel = lambda x: 1e-5 * abs(x) + 1e-12
    a = ref.angles(space, pooled, p)
    for name, value in (("angle_mean_deg", a.mean()),
                        ("angle_median_deg", ref.percentile(a, 50)),
                        ("angle_p95_deg", ref.percentile(a, 95))):
        close(name, value, rel(value))
    for kind in ("none", "i8", "fp8", "exact"):
        e = ref.reconstruction(space, pooled, p, kind)
        close(f"recon_{kind}", e.mean(), rel(e.mean()))
        close(f"recon_{kind}_p99", ref.percentile(e, 99),
              rel(ref.percentile(e, 99)))
    print(f"near-tie queries: {int((rows[:, 2] > 0).sum())} of {n}")
    if failures:
        print("FAILED: " + ", ".join(failures))
        return 1
    print("all metrics agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
