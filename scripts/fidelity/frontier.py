#!/usr/bin/env python3
"""Bytes against recall of the first-stage selections, on a make-dump.sh dump.

  frontier.py DUMP_DIR [--out=DIR] [--plot=FILE.png] [--only=NAME[,NAME...]]
      [--k=256] [--last=256] [--quick] [--list] [--tool=...] [--calibrate=...]

runs `indexpool-fidelity --json` for every configuration below on every
DUMP_DIR/layerL/headH, and writes DIR/frontier.json (every run),
DIR/frontier.csv (one row per configuration: the mean over heads of recall,
recall p10, mass recall, the bytes per query and their ratio to a
token-level FP8 scan, the worst head) and the plot (bytes ratio against
recall and mass recall, one point per configuration). --only runs the named
configurations alone (one command per configuration); --list prints them
with their flags. Every configuration stores the pooled keys with a
Hadamard rotation, as FP8 codes, or as INT4 codes where its name says i4
(`--format=i4`: the paged ops with codes = i4; max-aware ranks on the
host); bytes
come from the tool (the layout's formula, printed in its --json).

Configurations that need a fit:
  gate*       indexpool-calibrate --gate=mean-query per head (slot bias and
              gate fitted on the 768 positions before the last --last,
              which stay held out), then indexpool-fidelity --gate --bias.
  max-aware*  the bound weight A is chosen once, by the mean recall of the
              `max-aware-p4-c12` setting over all heads on the --last
              positions before the measured ones (the dump cut short by
              --last tokens), from A in {0.125, 0.25, 0.5, 1}; the measured
              positions never pick it. gate-max-aware* use both fits.
  per-head*   each head takes the candidate with the better mean recall on
              the same validation positions (gates for it fitted on the cut
              dump, cached in DIR/gates-validation), then is measured.
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
WEIGHTS = (0.125, 0.25, 0.5, 1.0)


def config(name, group, pool, refine=0, keys="exact", stage="mean",
           gate=False, weight=None, radius="f32", fmt="fp8"):
    flags = [f"--pool-size={pool}", f"--format={fmt}", "--rotate"]
    if refine:
        flags += [f"--refine={refine}", f"--refine-keys={keys}"]
    if stage != "mean":
        flags += [f"--first-stage={stage}"]
    if weight is not None:
        flags += [f"--bound-weight={weight:g}"]
    if radius != "f32":
        flags += [f"--radius-format={radius}"]
    return {"name": name, "group": group, "pool": pool, "refine": refine,
            "keys": keys, "stage": stage, "gate": gate, "weight": weight,
            "radius": radius, "format": fmt, "flags": flags}


def per_head(name, group, candidates):
    """One of `candidates` (same pool size, refine and bytes) per head: the
    one with the better mean recall on the head's validation positions."""
    first = candidates[0]
    return {"name": name, "group": group, "pool": first["pool"],
            "refine": first["refine"], "keys": first["keys"],
            "stage": "per-head", "gate": "per head", "weight": None,
            "radius": first["radius"], "format": first["format"], "flags": [],
            "choice": candidates}


def configurations(quick):
    """The sweep. k = 256 at T = 16384, D = 15 (16 with the rotation): a
    token-level FP8 row is 20 bytes, a pooled FP8 key 20 / P per token, a
    radius 4 / P more (1 / P as f8E5M2), a refined token-tier row 20: at
    P = 4 C = 15 refined rows of k keep the total under half the
    token-level scan (16 would read 0.502 of it), at P = 8 C = 23, with
    max-aware's f32 radius at P = 4 C = 12 and P = 8 C = 22, and with its
    one-byte radius at P = 4 C = 15 (0.499) and P = 8 C = 23; with INT4
    pooled keys (12 bytes a pool) at P = 4 C = 22 (0.4965), 21 with the
    one-byte radius (0.493)."""
    if quick:
        quick = [config("mean-p4", "mean", 4),
                config("mean-p2", "mean", 2),
                config("mean-p4-c2-token-fp8", "refine token-fp8", 4, 2,
                       "token-fp8"),
                config("max-aware-p4", "max-aware", 4, stage="max-aware"),
                config("max-aware-p4-c12", "max-aware + refine", 4, 2,
                       "token-fp8", "max-aware"),
                config("gate-p4", "gate", 4, gate=True),
                config("mean-i4-p4-c2", "i4 + refine", 4, 2, "token-fp8",
                       fmt="i4")]
        pair = [config("max-aware-p4-c2-e5m2", "max-aware e5m2 + refine", 4,
                       2, "token-fp8", "max-aware", radius="e5m2"),
                config("gate-max-aware-p4-c2-e5m2",
                       "gate + max-aware e5m2 + refine", 4, 2, "token-fp8",
                       "max-aware", gate=True, radius="e5m2")]
        return quick + pair + [per_head("per-head-p4-c2-e5m2",
                                        "per-head choice + refine", pair)]
    c = []
    for p in (8, 4, 2):
        c.append(config(f"mean-p{p}", "mean", p))
    for r in (2, 4, 8, 15):
        c.append(config(f"mean-p4-c{r}-token-fp8", "refine token-fp8", 4, r,
                        "token-fp8"))
    for r in (16, 23):
        c.append(config(f"mean-p8-c{r}-token-fp8", "refine token-fp8", 8, r,
                        "token-fp8"))
    c.append(config("mean-p2-c4-token-fp8", "refine token-fp8", 2, 4,
                    "token-fp8"))
    c.append(config("max-aware-p4", "max-aware", 4, stage="max-aware"))
    for w in WEIGHTS:
        # Every weight of the validation grid, measured (not chosen) here.
        c.append(config(f"max-aware-p4-a{w:g}", "max-aware (fixed A)", 4,
                        stage="max-aware", weight=w))
    c.append(config("max-aware-p4-c12", "max-aware + refine", 4, 12,
                    "token-fp8", "max-aware"))
    c.append(config("max-aware-p8-c22", "max-aware + refine", 8, 22,
                    "token-fp8", "max-aware"))
    # Max-aware with a one-byte radius, alone and under the gate.
    for p, r in ((4, 15), (8, 23)):
        c.append(config(f"max-aware-p{p}-c{r}-e5m2",
                        "max-aware e5m2 + refine", p, r, "token-fp8",
                        "max-aware", radius="e5m2"))
        c.append(config(f"gate-max-aware-p{p}-c{r}-e5m2",
                        "gate + max-aware e5m2 + refine", p, r, "token-fp8",
                        "max-aware", gate=True, radius="e5m2"))
    # Either of those two at P = 4 per head, whichever its validation
    # positions prefer (the gate hurts heads whose neighbours disagree).
    c.append(per_head("per-head-p4-c15-e5m2", "per-head choice + refine",
                      [x for x in c if x["name"] in (
                          "max-aware-p4-c15-e5m2",
                          "gate-max-aware-p4-c15-e5m2")]))
    # INT4 pooled keys (12 bytes a pool against FP8's 20): the bytes they
    # save buy refined rows, C = 22 under half the scan (21 with the radius).
    plain = [config("mean-i4-p4-c22", "i4 + refine", 4, 22, "token-fp8",
                    fmt="i4"),
             config("gate-i4-p4-c22", "gate i4 + refine", 4, 22, "token-fp8",
                    gate=True, fmt="i4")]
    c += plain
    # Per head without max-aware: the gate or the model's own scores.
    c.append(per_head("per-head-i4-p4-c22", "per-head choice i4 + refine",
                      plain))
    pair = [config("max-aware-i4-p4-c21-e5m2", "max-aware e5m2 i4 + refine",
                   4, 21, "token-fp8", "max-aware", radius="e5m2", fmt="i4"),
            config("gate-max-aware-i4-p4-c21-e5m2",
                   "gate + max-aware e5m2 i4 + refine", 4, 21, "token-fp8",
                   "max-aware", gate=True, radius="e5m2", fmt="i4")]
    c += pair
    c.append(per_head("per-head-i4-p4-c21-e5m2", "per-head choice i4 + refine",
                      pair))
    # FP4 E2M1 pooled keys at the same bytes as INT4 (two codes a byte, an
    # f32 scale): the codes' grid, not their size, differs.
    fp4 = [config("mean-f4-p4-c22", "f4E2M1FN + refine", 4, 22, "token-fp8",
                  fmt="f4E2M1FN"),
           config("gate-f4-p4-c22", "gate f4E2M1FN + refine", 4, 22,
                  "token-fp8", gate=True, fmt="f4E2M1FN")]
    c += fp4
    c.append(per_head("per-head-f4-p4-c22",
                      "per-head choice f4E2M1FN + refine", fp4))
    c.append(config("gate-p4", "gate", 4, gate=True))
    for r in (4, 8, 15):
        c.append(config(f"gate-p4-c{r}", "gate + refine", 4, r, "token-fp8",
                        gate=True))
    c.append(config("gate-p8-c23", "gate + refine", 8, 23, "token-fp8",
                    gate=True))
    # The token tier's format, for the paged layout: refine's recall at
    # C = 2, 4, 8 on f32 keys, the residual tiers and an INT8 token tier
    # (the FP8 token tier's: above).
    for keys in ("exact", "fp8", "i8", "token-i8"):
        for r in (2, 4, 8):
            group = f"refine {keys}" if keys in ("exact", "token-i8") \
                else f"refine residual {keys}"
            c.append(config(f"mean-p4-c{r}-{keys}", group, 4, r, keys))
    return c


def heads_of(dump):
    heads = sorted(glob.glob(os.path.join(dump, "layer*", "head*")),
                   key=lambda d: [int("".join(filter(str.isdigit, part)))
                                  for part in d.split(os.sep)[-2:]])
    if not heads:
        sys.exit(f"frontier.py: error: no layer*/head* folders in {dump}")
    return heads


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"frontier.py: error: {' '.join(cmd)} failed:\n"
                 f"{done.stderr.strip()}")
    return done.stdout


def fidelity(args, head, cfg, extra=()):
    cmd = [args.tool, f"--keys=@{head}/keys.npy",
           f"--queries=@{head}/queries.npy", f"--k={args.k}",
           f"--last={args.last}", *cfg["flags"], *extra, "--json"]
    return json.loads(run(cmd))


def gate_files(args, head, cache, pool):
    """Fits the gate and slot bias of one head at pool size `pool` (cached
    in `cache`)."""
    name = "_".join(head.split(os.sep)[-2:]) + f"-p{pool}-k{args.k}"
    gate = os.path.join(cache, f"{name}-gate.npy")
    bias = os.path.join(cache, f"{name}-bias.npy")
    if not (os.path.exists(gate) and os.path.exists(bias)):
        tokens = np.load(os.path.join(head, "keys.npy"), mmap_mode="r").shape[0]
        train = min(768, tokens - args.last - pool)
        # Written under other names first: a concurrent sweep never reads
        # half a file.
        run([args.calibrate, f"--keys=@{head}/keys.npy",
             f"--queries=@{head}/queries.npy", f"--pool-size={pool}",
             f"--k={args.k}", f"--train={train}", f"--held-out={args.last}",
             "--format=fp8", "--rotate", "--gate=mean-query", f"--gate-output={gate}.tmp",
             "-o", f"{bias}.tmp", "--json"])
        os.replace(f"{gate}.tmp", gate)
        os.replace(f"{bias}.tmp", bias)
    return [f"--gate=@{gate}", f"--bias=@{bias}"]


def cut_dump(args, heads, into):
    """The heads' dumps cut short by --last tokens, written under `into`:
    their last --last positions are the ones before the measured ones."""
    short = []
    for head in heads:
        d = os.path.join(into, *head.split(os.sep)[-2:])
        os.makedirs(d)
        for n in ("keys", "queries"):
            a = np.load(os.path.join(head, n + ".npy"))
            np.save(os.path.join(d, n + ".npy"), a[:-args.last])
        short.append(d)
    return short


def head_flags(args, head, cfg, weight, cache):
    """The flags `cfg` adds for `head`: max-aware's chosen weight, the
    head's gate and bias."""
    flags = []
    if cfg["stage"] == "max-aware" and cfg["weight"] is None:
        flags.append(f"--bound-weight={weight:g}")
    if cfg["gate"]:
        flags += gate_files(args, head, cache, cfg["pool"])
    return flags


def choose_per_head(args, heads, cfg, weight, cache):
    """For each head, the candidate of cfg["choice"] with the better mean
    recall on its validation positions (ties to the first). The gates for
    validation are fitted on the cut dump (cached in `cache`), so the
    positions that choose are held out from the gate that is judged."""
    chosen = []
    os.makedirs(cache, exist_ok=True)
    with tempfile.TemporaryDirectory() as cut:
        for head, short in zip(heads, cut_dump(args, heads, cut)):
            recalls = [fidelity(args, short, c,
                                head_flags(args, short, c, weight, cache))
                       ["recall"] for c in cfg["choice"]]
            best = max(range(len(recalls)), key=lambda i: (recalls[i], -i))
            print(f"  {'/'.join(head.split(os.sep)[-2:])}: "
                  + ", ".join(f"{c['name']} {100 * r:.2f}%" for c, r in
                              zip(cfg["choice"], recalls))
                  + f" -> {cfg['choice'][best]['name']}", flush=True)
            chosen.append(cfg["choice"][best])
    return chosen


def choose_weight(args, heads, cfg):
    """Max-aware's A, by mean recall on the positions before the measured
    ones: the dump cut short by --last tokens, its last --last positions."""
    with tempfile.TemporaryDirectory() as cut:
        short = cut_dump(args, heads, cut)
        scores = {}
        for w in WEIGHTS:
            runs = [fidelity(args, h, cfg, [f"--bound-weight={w}"])
                    for h in short]
            scores[w] = float(np.mean([r["recall"] for r in runs]))
            print(f"  bound weight {w:g}: validation recall "
                  f"{100 * scores[w]:.2f}%", flush=True)
    return max(WEIGHTS, key=lambda w: (scores[w], -w)), scores


def summary(cfg, runs):
    mean = lambda key: float(np.mean([r[key] for r in runs]))
    worst = min(runs, key=lambda r: r["recall"])
    return {"name": cfg["name"], "group": cfg["group"],
            "pool_size": cfg["pool"], "refine": cfg["refine"],
            "refine_keys": cfg["keys"] if cfg["refine"] else "",
            "first_stage": cfg["stage"], "gate": cfg["gate"],
            "radius_format": cfg["radius"] if cfg["stage"] != "mean" else "",
            "pooled_format": cfg["format"],
            "bound_weight": runs[0]["bound_weight"],
            "heads": len(runs), "recall": mean("recall"),
            "recall_p10": mean("recall_p10"),
            "mass_recall": mean("mass_recall"),
            "bytes_total": mean("bytes_total"),
            "bytes_token_fp8": mean("bytes_token_fp8"),
            "bytes_ratio": mean("bytes_ratio"),
            "worst_head": worst["head"], "worst_recall": worst["recall"],
            "worst_mass_recall": worst["mass_recall"]}


def plot(rows, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2))
    groups = sorted({r["group"] for r in rows})
    markers = "osD^v<>px*h"
    for ax, key, target in ((axes[0], "recall", 0.90),
                            (axes[1], "mass_recall", 0.97)):
        for i, g in enumerate(groups):
            pts = [r for r in rows if r["group"] == g]
            ax.scatter([r["bytes_ratio"] for r in pts],
                       [100 * r[key] for r in pts], marker=markers[i % 11],
                       label=g, s=36)
            for r in pts:
                ax.annotate(r["name"], (r["bytes_ratio"], 100 * r[key]),
                            fontsize=6, xytext=(3, 2),
                            textcoords="offset points")
        ax.axhline(100 * target, color="grey", ls="--", lw=0.8)
        ax.axvline(0.5, color="grey", ls=":", lw=0.8)
        ax.set_xlabel("bytes read per query / token-level FP8 scan")
        ax.set_ylabel(("recall@k" if key == "recall" else "mass recall")
                      + " (%, mean over heads)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump")
    parser.add_argument("--out", default=os.path.join(REPO, "build",
                                                      "fidelity", "frontier"))
    parser.add_argument("--plot")
    parser.add_argument("--only")
    parser.add_argument("--k", type=int, default=256)
    parser.add_argument("--last", type=int, default=256)
    parser.add_argument("--quick", action="store_true",
                        help="a reduced sweep for tiny dumps (tests)")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--tag", help="output name suffix with --only "
                        "(default: the configuration's name, or 'selected')")
    parser.add_argument("--merge", help="FILE.json,...: earlier outputs "
                        "(of --only runs) to combine into frontier.json, "
                        ".csv and the plot, running nothing")
    parser.add_argument("--weight", type=float,
                        help="max-aware's A, skipping the validation")
    parser.add_argument("--title", default="PP-OCRv4 recognizer keys "
                        "(not an LLM indexer), T = 16384, k = 256")
    parser.add_argument("--tool", default=os.path.join(
        REPO, "build", "bin", "indexpool-fidelity"))
    parser.add_argument("--calibrate", default=os.path.join(
        REPO, "build", "bin", "indexpool-calibrate"))
    args = parser.parse_args()
    if args.k <= 0 or args.last <= 0:
        sys.exit("frontier.py: error: --k and --last must be positive")
    if args.weight is not None and args.weight < 0:
        sys.exit(f"frontier.py: error: --weight={args.weight} must be "
                 "non-negative")
    configs = configurations(args.quick)
    if args.merge:
        # A configuration measured again in a later file replaces the
        # earlier rows and runs.
        rows, runs, weights = {}, {}, set()
        for path in args.merge.split(","):
            with open(path) as f:
                part = json.load(f)
            for row in part["configurations"]:
                rows[row["name"]] = row
                runs[row["name"]] = [r for r in part["runs"]
                                     if r["configuration"] == row["name"]]
            weights.add(part["bound_weight"])
        weights.discard(None)
        if len(weights) > 1:
            sys.exit(f"frontier.py: error: --merge: the files chose different "
                     f"max-aware bound weights {sorted(weights)}")
        write(args, "", list(rows.values()),
              [r for name in rows for r in runs[name]],
              weights.pop() if weights else None)
        return
    if args.list:
        for c in configs:
            added = []
            if c["gate"] is True:
                added.append("--gate --bias from indexpool-calibrate")
            if c["stage"] == "max-aware" and c["weight"] is None:
                added.append("--bound-weight: --weight, or the validation")
            extra = f" (+ {'; '.join(added)})" if added else ""
            if "choice" in c:
                extra = "per head, by recall on its validation positions: " \
                    + " or ".join(x["name"] for x in c["choice"])
            print(f"{c['name']}: {' '.join(c['flags'])}{extra}")
        return
    if args.only:
        names = args.only.split(",")
        unknown = [n for n in names if n not in {c["name"] for c in configs}]
        if unknown:
            sys.exit(f"frontier.py: error: unknown configuration "
                     f"{', '.join(unknown)} (see --list)")
        configs = [c for c in configs if c["name"] in names]
    heads = heads_of(args.dump)
    os.makedirs(args.out, exist_ok=True)
    cache = os.path.join(args.out, "gates")
    os.makedirs(cache, exist_ok=True)

    weight = args.weight
    if weight is None and any(x["stage"] == "max-aware" and
                              x["weight"] is None
                              for c in configs for x in c.get("choice", [c])):
        ref = next(c for c in configurations(args.quick)
                   if c["name"] == "max-aware-p4-c12")
        print("choosing max-aware's bound weight on the positions before "
              "the measured ones:", flush=True)
        weight, _ = choose_weight(args, heads, ref)
        print(f"  chosen: {weight:g}", flush=True)

    runs, rows = [], []
    print("| configuration | bytes / token-level FP8 | recall | p10 | "
          "mass recall | worst head (recall / mass) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for cfg in configs:
        per = [cfg] * len(heads)
        if "choice" in cfg:
            print(f"{cfg['name']}: choosing per head on the positions "
                  "before the measured ones:", flush=True)
            per = choose_per_head(args, heads, cfg, weight,
                                  os.path.join(args.out, "gates-validation"))
        results = []
        for head, chosen in zip(heads, per):
            r = fidelity(args, head, chosen,
                         head_flags(args, head, chosen, weight, cache))
            r["head"] = "/".join(head.split(os.sep)[-2:])
            r["configuration"] = cfg["name"]
            if chosen is not cfg:
                r["chosen"] = chosen["name"]
            results.append(r)
        runs += results
        s = summary(cfg, results)
        rows.append(s)
        print(f"| {s['name']} | {s['bytes_ratio']:.3f} | "
              f"{100 * s['recall']:.1f}% | {100 * s['recall_p10']:.1f}% | "
              f"{100 * s['mass_recall']:.2f}% | {s['worst_head']}: "
              f"{100 * s['worst_recall']:.1f}% / "
              f"{100 * s['worst_mass_recall']:.1f}% |", flush=True)
    suffix = ""
    if args.only:
        names = args.only.split(",")
        suffix = "-" + (args.tag or (names[0] if len(names) == 1
                                     else "selected"))
    write(args, suffix, rows, runs, weight)


def write(args, suffix, rows, runs, weight):
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"frontier{suffix}.json"), "w") as f:
        json.dump({"configurations": rows, "runs": runs,
                   "bound_weight": weight}, f, indent=1)
    with open(os.path.join(args.out, f"frontier{suffix}.csv"), "w",
              newline="") as f:
        # Rows merged from older files may lack newer columns: the union.
        fields = list(dict.fromkeys(key for row in rows for key in row))
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {os.path.join(args.out, 'frontier' + suffix)}.json, .csv")
    if args.plot:
        plot(rows, args.plot, args.title)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
