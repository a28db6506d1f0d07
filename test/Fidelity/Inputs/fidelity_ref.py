#!/usr/bin/env python3
"""An independent float64 NumPy computation of indexpool-fidelity's metrics.

  fidelity_ref.py compare KEYS QUERIES TOOL.json [--pool-size=4] [--k=256]
      [--last=16] [--score=uniform|norm] [--bias=B.npy] [--gate=G.npy]
      [--refine=C] [--refine-keys=exact|i8|fp8|token-fp8|token-i8]
      [--first-stage=mean|max-aware] [--bound-weight=A]
      [--radius-format=f32|e5m2] [--format=none|i4]
recomputes every metric of `indexpool-fidelity --format=none` or `i4` (no
rotation)
and checks the tool's JSON against it: recall and mass recall within what
f32-vs-f64 near ties of pool scores allow (derived per query below), angles
and reconstruction errors within 1e-5 relative.

  fidelity_ref.py plausible NONE.json FP8.json I8.json [ROTATED.json ...]
checks the orderings every run must show (recon_i8 < recon_fp8 < recon_none,
exact residuals reconstruct exactly, quantized pooled keys are no closer to
their originals than f32 ones, recall and mass recall in [0, 1]).
"""
import argparse
import json
import sys

import numpy as np

F32_EPS = 2.0 ** -24  # unit roundoff of f32


def percentile(values, q):
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def pool_keys(keys, pool_size, score, bias, gate=None):
    """indexpool.pool in float64, the pooled keys rounded to f32 as stored.
    A gate g makes the scores g . k_t, rounded to f32 as the tool feeds
    them to the pool op."""
    tokens, dim = keys.shape
    groups = tokens // pool_size
    grouped = keys[:groups * pool_size].reshape(groups, pool_size, dim)
    if gate is not None:
        logits = (grouped @ gate).astype(np.float32).astype(np.float64)
    elif score == "norm":
        logits = np.linalg.norm(grouped, axis=2)
    else:
        logits = np.zeros((groups, pool_size))
    if bias is not None and bias.ndim == 2:
        logits = np.repeat(logits[:, :, None], dim, axis=2) + bias[None]
    elif bias is not None:
        logits = logits + bias[None]
    if logits.ndim == 2:
        logits = logits[:, :, None]
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    pooled = (weights * grouped).sum(axis=1)
    return pooled.astype(np.float32).astype(np.float64)


def round_f8e4m3fn(x):
    """Round to nearest even f8E4M3FN, saturating at 448."""
    a = np.abs(x)
    exponent = np.floor(np.log2(np.maximum(a, 2.0 ** -6)))
    quantum = 2.0 ** (exponent - 3)
    r = np.minimum(np.rint(a / quantum) * quantum, 448.0)
    return np.sign(x) * r


def reconstructed(keys, pooled, pool_size, kind):
    """k_hat = pooled + the residual kept as `kind` (none, exact, i8, fp8:
    quantized per vector as the quantize op does, in f32)."""
    groups, dim = pooled.shape
    k = keys[:groups * pool_size]
    p = np.repeat(pooled, pool_size, axis=0)
    if kind == "none":
        k_hat = p
    elif kind == "exact":
        k_hat = p + (k - p)
    else:
        qmax = 127.0 if kind == "i8" else 448.0
        r = (k - p).astype(np.float32).astype(np.float64)
        absmax = np.maximum(np.abs(r).max(axis=1), 1e-4)
        scale = (absmax / qmax).astype(np.float32).astype(np.float64)
        code = (r / scale[:, None]).astype(np.float32).astype(np.float64)
        code = np.clip(code, -qmax, qmax)
        code = np.rint(code) if kind == "i8" else round_f8e4m3fn(code)
        k_hat = p + code * scale[:, None]
    return k_hat


def quantize_rows(x, kind):
    """Per-vector quantize + dequantize as the quantize op does (f32); i4:
    the same with 7 for 127 (the i4 codes of compress_paged)."""
    qmax = {"i8": 127.0, "i4": 7.0}.get(kind, 448.0)
    r = x.astype(np.float32).astype(np.float64)
    absmax = np.maximum(np.abs(r).max(axis=1), 1e-4)
    scale = (absmax / qmax).astype(np.float32).astype(np.float64)
    code = (r / scale[:, None]).astype(np.float32).astype(np.float64)
    code = np.clip(code, -qmax, qmax)
    code = np.rint(code) if kind in ("i8", "i4") else round_f8e4m3fn(code)
    return code * scale[:, None]


def e5m2_values():
    """Every finite non-negative f8E5M2 value, ascending: an E5M2 byte is
    the high byte of an IEEE half (exponent bits 31 are inf / NaN)."""
    bits = (np.arange(0, 0x7C, dtype=np.uint16) << 8)
    return np.sort(bits.view(np.float16).astype(np.float64))


def radii(keys, pooled, pool_size, radius_format="f32"):
    """Max-aware's r_g = max_s ||k_s - p_g|| as stored: rounded to f32, or
    the smallest f8E5M2 value at or above it (the largest, 57344, above)."""
    groups, dim = pooled.shape
    k = keys[:groups * pool_size].reshape(groups, pool_size, dim)
    r = np.linalg.norm(k - pooled[:, None, :], axis=2).max(axis=1)
    if radius_format == "e5m2":
        table = e5m2_values()
        return table[np.minimum(np.searchsorted(table, r, side="left"),
                                len(table) - 1)]
    return r.astype(np.float32).astype(np.float64)


def reconstruction(keys, pooled, pool_size, kind):
    """||k_hat - k|| / ||k|| per key (zero keys left out)."""
    groups = pooled.shape[0]
    k = keys[:groups * pool_size]
    k_hat = reconstructed(keys, pooled, pool_size, kind)
    norms = np.linalg.norm(k, axis=1)
    keep = norms > 0
    return np.linalg.norm(k_hat - k, axis=1)[keep] / norms[keep]


def angles(keys, pooled, pool_size):
    groups, dim = pooled.shape
    k = keys[:groups * pool_size]
    p = np.repeat(pooled, pool_size, axis=0)
    nk, np_ = np.linalg.norm(k, axis=1), np.linalg.norm(p, axis=1)
    keep = (nk > 0) & (np_ > 0)
    cosine = (k * p).sum(axis=1)[keep] / (nk[keep] * np_[keep])
    return np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0)))


def top_indices(values, count):
    """The `count` largest, ties to the smaller index."""
    order = np.lexsort((np.arange(len(values)), -values))
    return order[:count]


def refined(keys, q, selected, k, exact, mass, exact_mass):
    """indexpool.refine in float64: the candidates `selected` (in select's
    order) re-scored by q.k, the best k kept, ties to the earlier
    candidate; and the slack f32 near ties at the k-th candidate allow."""
    dim = keys.shape[1]
    scores = keys[selected] @ q
    order = top_indices(scores, len(selected))
    kept = selected[order[:k]]
    if len(selected) <= k:
        return kept, 0.0, 0.0
    # The f32 dot product's error bound per candidate; candidates on either
    # side of the boundary within their bounds may swap, one for one.
    gamma = dim * F32_EPS / (1 - dim * F32_EPS)
    bound = gamma * (np.abs(keys[selected]) @ np.abs(q))
    last_in, first_out = order[k - 1], order[k]
    inside = [j for j in order[:k] if scores[j] - scores[first_out] <=
              bound[j] + bound[first_out]]
    outside = [j for j in order[k:] if scores[last_in] - scores[j] <=
               bound[last_in] + bound[j]]
    swaps = min(len(inside), len(outside))
    if swaps == 0:
        return kept, 0.0, 0.0
    near = mass[selected[inside]].sum() + mass[selected[outside]].sum()
    return kept, swaps / len(exact), near / exact_mass


def selection(keys, queries, pooled, pool_size, k, last, refine=0,
              refine_keys=None, radius=None, bound_weight=0.0):
    """Recall and mass recall per query, with the slack near ties allow.
    refine = C: select keeps C * k / P pools and refine keeps k of their
    tokens by q.k, over `refine_keys` (default: the keys themselves).
    radius: the max-aware first stage, pools ranked by
    q . p + bound_weight ||q|| radius."""
    tokens, dim = keys.shape
    if refine_keys is None:
        refine_keys = keys
    kept_pools = (refine or 1) * k // pool_size
    rows = []
    for i in range(tokens - last, tokens):
        n = (i // pool_size) * pool_size
        q = queries[i]
        valid = n // pool_size
        scores = pooled[:valid] @ q
        if radius is not None:
            scores = scores + bound_weight * np.linalg.norm(q) * radius[:valid]
        chosen = top_indices(scores, kept_pools)
        selected = (chosen[:, None] * pool_size +
                    np.arange(pool_size)[None]).ravel()
        qk = keys[:n] @ q
        exact = top_indices(qk, min(k, n))
        mass = np.exp((qk - qk.max()) / np.sqrt(dim))
        exact_mass = mass[exact].sum()
        refine_recall = refine_mass = 0.0
        if refine:
            selected, refine_recall, refine_mass = refined(
                refine_keys[:n], q, selected, k, exact, mass, exact_mass)
        recall = len(np.intersect1d(selected, exact)) / len(exact)
        mass_recall = mass[selected].sum() / exact_mass
        # The compiled score sums D f32 products: |error| <= gamma_D *
        # sum_d |q_d p_d| (gamma_D = D u / (1 - D u)). Pools whose f64 scores
        # are that close to the boundary may swap: one swap changes P tokens.
        slack_recall = slack_mass = 0.0
        if valid > kept_pools:
            gamma = dim * F32_EPS / (1 - dim * F32_EPS)
            # (The max-aware stage ranks in float64: the bound only widens
            # the slack there.)
            bound = gamma * (np.abs(pooled[:valid]) @ np.abs(q))
            order = top_indices(scores, valid)
            inside, outside = order[kept_pools - 1], order[kept_pools]
            if scores[inside] - scores[outside] <= \
                    bound[inside] + bound[outside]:
                slack_recall = pool_size / len(exact)
                tokens_of = lambda g: mass[g * pool_size:(g + 1) * pool_size]
                slack_mass = (tokens_of(inside).sum() +
                              tokens_of(outside).sum()) / exact_mass
        rows.append((recall, mass_recall, slack_recall + refine_recall,
                     slack_mass + refine_mass))
    return np.array(rows)


def compare(args):
    keys = np.load(args.keys).astype(np.float64)
    queries = np.load(args.queries).astype(np.float64)
    bias = np.load(args.bias).astype(np.float64) if args.bias else None
    gate = np.load(args.gate).astype(np.float64) if args.gate else None
    with open(args.tool_json) as f:
        tool = json.load(f)
    p = args.pool_size
    pooled = pool_keys(keys, p, args.score, bias, gate)
    if args.format == "i4":
        # INT4 pooled keys: every metric sees them dequantized, as stored.
        pooled = quantize_rows(pooled, "i4")
    radius = None
    if args.first_stage == "max-aware":
        radius = radii(keys, pooled, p, args.radius_format)
    refine_keys = None
    if args.refine_keys.startswith("token-"):
        # A token tier's keys: each key quantized per vector, as f32.
        refine_keys = quantize_rows(keys, args.refine_keys[len("token-"):])
        refine_keys = refine_keys.astype(np.float32).astype(np.float64)
    elif args.refine_keys != "exact":
        # A slower tier's keys: the f32 pooled key plus the quantized
        # residual, as reconstruct gives them (the keys themselves as f32).
        refine_keys = reconstructed(keys, pooled, p, args.refine_keys)
        refine_keys = refine_keys.astype(np.float32).astype(np.float64)
    rows = selection(keys, queries, pooled, p, args.k, args.last,
                     args.refine, refine_keys, radius, args.bound_weight)
    recalls, masses = rows[:, 0], rows[:, 1]
    n = len(rows)
    failures = []

    def close(name, ref, slack):
        got = tool[name]
        ok = abs(got - ref) <= slack
        print(f"{name}: tool {got:.9g} ref {ref:.9g} slack {slack:.3g} "
              f"{'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(name)

    # Means move by at most the per-query slack over N; 1e-7 for printing.
    close("recall", recalls.mean(), rows[:, 2].sum() / n + 1e-7)
    close("mass_recall", masses.mean(), rows[:, 3].sum() / n + 1e-7)
    # A percentile moves by at most the largest per-query slack.
    close("recall_p10", percentile(recalls, 10), rows[:, 2].max() + 1e-7)
    a = angles(keys, pooled, p)
    rel = lambda x: 1e-5 * abs(x) + 1e-12
    for name, value in (("angle_mean_deg", a.mean()),
                        ("angle_median_deg", percentile(a, 50)),
                        ("angle_p95_deg", percentile(a, 95))):
        close(name, value, rel(value))
    for kind in ("none", "i8", "fp8", "exact"):
        e = reconstruction(keys, pooled, p, kind)
        close(f"recon_{kind}", e.mean(), rel(e.mean()))
        close(f"recon_{kind}_p99", percentile(e, 99), rel(percentile(e, 99)))
    # Bytes per query (format none, unrotated: f32 pooled keys, f32 token
    # keys for refine, D + 4 per token for a token-level FP8 indexer).
    tokens, dim = keys.shape
    valid = np.arange(tokens - args.last, tokens) // p
    kept = (args.refine or 1) * args.k // p
    # A max-aware first stage reads one radius per pool too (f32: 4 bytes,
    # e5m2: 1).
    pool_bytes = (dim * 4 if args.format == "none" else (dim + 1) // 2 + 4) + (
        0 if radius is None else 1 if args.radius_format == "e5m2" else 4)
    token_fp8 = (valid * p * (dim + 4)).mean()
    total = (valid * pool_bytes).mean() + (
        (np.minimum(kept, valid) * p *
         (dim * 4 if args.refine_keys == "exact" else dim + 4)).mean()
        if args.refine else 0.0)
    for name, ref in (
            ("bytes_total", total),
            ("bytes_ratio", total / token_fp8),
            ("bytes_pooled", (valid * pool_bytes).mean()),
            ("bytes_refine", (np.minimum(kept, valid) * p *
                              (dim * 4 if args.refine_keys == "exact"
                               else dim + 4)).mean()
             if args.refine else 0.0),
            ("bytes_token_fp8", (valid * p * (dim + 4)).mean())):
        # JSON prints 9 significant digits: a relative 5e-9.
        close(name, ref, 1e-8 * ref + 1e-9)
    print(f"near-tie queries: {int((rows[:, 2] > 0).sum())} of {n}")
    if failures:
        print("FAILED: " + ", ".join(failures))
        return 1
    print("all metrics agree")
    return 0


def plausible(args):
    reports = [json.load(open(path)) for path in args.reports]
    failures = []

    def check(condition, what):
        print(f"{what}: {'ok' if condition else 'FAIL'}")
        if not condition:
            failures.append(what)

    none = reports[0]
    for path, r in zip(args.reports, reports):
        tag = f"{r['format']}{' rotated' if r['rotate'] else ''}"
        check(r["recon_i8"] < r["recon_fp8"] < r["recon_none"],
              f"{tag}: recon_i8 < recon_fp8 < recon_none")
        check(r["recon_exact"] <= 1e-12, f"{tag}: exact residuals exact")
        check(0 <= r["recall_p10"] <= r["recall"] <= 1 and
              0 < r["mass_recall"] <= 1 + 1e-9, f"{tag}: recalls in [0, 1]")
        check(0 <= r["angle_median_deg"] <= r["angle_p95_deg"] <= 180,
              f"{tag}: angles ordered")
        if r["format"] != "none" and not r["rotate"]:
            check(r["angle_mean_deg"] >= none["angle_mean_deg"] - 1e-3,
                  f"{tag}: angles no smaller than f32's")
    if failures:
        print("FAILED: " + ", ".join(failures))
        return 1
    print("all plausible")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compare")
    c.add_argument("keys")
    c.add_argument("queries")
    c.add_argument("tool_json")
    c.add_argument("--pool-size", type=int, default=4)
    c.add_argument("--k", type=int, default=256)
    c.add_argument("--last", type=int, default=16)
    c.add_argument("--score", default="uniform")
    c.add_argument("--format", default="none", choices=("none", "i4"))
    c.add_argument("--bias")
    c.add_argument("--refine", type=int, default=0)
    c.add_argument("--refine-keys", default="exact",
                   choices=("exact", "i8", "fp8", "token-fp8", "token-i8"))
    c.add_argument("--gate")
    c.add_argument("--first-stage", default="mean",
                   choices=("mean", "max-aware"))
    c.add_argument("--bound-weight", type=float, default=1.0)
    c.add_argument("--radius-format", default="f32", choices=("f32", "e5m2"))
    p = sub.add_parser("plausible")
    p.add_argument("reports", nargs="+")
    args = parser.parse_args()
    return compare(args) if args.command == "compare" else plausible(args)


if __name__ == "__main__":
    sys.exit(main())
