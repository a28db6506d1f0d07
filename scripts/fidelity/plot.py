#!/usr/bin/env python3
"""Recall vs k and recall vs P of pooled selection, in one command.

Runs indexpool-fidelity --json over a sweep on the given keys / queries and
writes, under --out:
  fidelity-recall-vs-k.png  recall and mass recall vs k (P = 4)
  fidelity-recall-vs-p.png  recall and mass recall vs P (k = 256)
  fidelity-sweep.json       every run: its options and the tool's JSON object
  fidelity-sweep.csv        the same, one row per run
Formats none / fp8 / i8; --rotate adds each format Hadamard-rotated.

  plot.py --keys=d/keys.npy --queries=d/queries.npy --out=DIR [--last=256]
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FORMATS = ("none", "fp8", "i8")
SWEEP_K = (64, 128, 256, 512, 1024, 2048)  # at P = 4
SWEEP_P = (2, 4, 8)  # at k = 256
# --quick: a reduced sweep for small dumps (the lit test).
QUICK_K = (16, 32, 64)
QUICK_P = (2, 4)
QUICK_FORMATS = ("none", "fp8")
# Numbers file columns: the options of the run, then the tool's metrics.
OPTION_COLUMNS = ("format", "rotate", "pool_size", "k", "queries", "tokens", "dim",
                  "score")
METRIC_COLUMNS = ("recall", "recall_p10", "mass_recall", "angle_mean_deg",
                  "angle_median_deg", "angle_p95_deg", "recon_none", "recon_i8",
                  "recon_fp8", "recon_none_p99", "recon_i8_p99", "recon_fp8_p99")


def find_tool(tool):
    # A bare name is looked up on PATH (lit puts the build's bin/ there).
    if os.sep not in tool:
        found = shutil.which(tool)
        if found:
            return found
    # A relative path: from here, else from the repository (the default).
    path = tool if os.access(tool, os.X_OK) else os.path.join(REPO, tool)
    if not os.access(path, os.X_OK):
        sys.exit(f"plot.py: error: no executable indexpool-fidelity at '{tool}'")
    return path


def run_one(args, tool, fmt, rotate, pool_size, k):
    cmd = [tool, f"--keys=@{args.keys}", f"--queries=@{args.queries}",
           f"--pool-size={pool_size}", f"--k={k}", f"--format={fmt}",
           f"--last={args.last}", f"--score={args.score}", "--json"]
    if rotate:
        cmd.append("--rotate")
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"plot.py: error: {' '.join(cmd)} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout)


def variants(formats, rotate):
    return [(fmt, rot) for rot in ((False, True) if rotate else (False,))
            for fmt in formats]


def sweep(args, tool):
    formats = QUICK_FORMATS if args.quick else FORMATS
    ks = QUICK_K if args.quick else SWEEP_K
    ps = QUICK_P if args.quick else SWEEP_P
    k_at_p, p_at_k = 4, (32 if args.quick else 256)
    runs = {}  # (format, rotate, P, k) -> the tool's JSON; shared points run once
    points = [(fmt, rot, k_at_p, k) for fmt, rot in variants(formats, args.rotate)
              for k in ks]
    points += [(fmt, rot, p, p_at_k) for fmt, rot in variants(formats, args.rotate)
               for p in ps]
    for point in points:
        if point not in runs:
            runs[point] = run_one(args, tool, *point)
    return formats, ks, ps, k_at_p, p_at_k, runs


def label(fmt, rotate):
    return f"{fmt}{' rotated' if rotate else ''}"


def style(fmt, rotate):
    # The formats often overlap: distinct markers keep each visible.
    colors = {"none": "tab:blue", "fp8": "tab:orange", "i8": "tab:green"}
    markers = {"none": "o", "fp8": "^", "i8": "x"}
    return dict(color=colors[fmt], linestyle="--" if rotate else "-",
                marker=markers[fmt], markersize=4 if rotate else 7,
                fillstyle="full" if rotate else "none")


def plot(path, xs, xlabel, key_of, runs, formats, rotate, title, log2):
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
    for ax, metric, name in ((axes[0], "recall", "recall (mean)"),
                             (axes[1], "mass_recall", "attention-mass recall (mean)")):
        for fmt, rot in variants(formats, rotate):
            ys = [runs[key_of(fmt, rot, x)][metric] for x in xs]
            ax.plot(xs, ys, label=label(fmt, rot), **style(fmt, rot))
        if log2:
            ax.set_xscale("log", base=2)
        ax.set_xticks(xs)
        ax.set_xticklabels([str(x) for x in xs])
        ax.set_xlabel(xlabel)
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def write_numbers(out, runs):
    rows = []
    for (fmt, rot, p, k), result in runs.items():
        assert (result["format"], result["rotate"], result["pool_size"],
                result["k"]) == (fmt, rot, p, k)
        rows.append({c: result[c] for c in OPTION_COLUMNS + METRIC_COLUMNS})
    with open(os.path.join(out, "fidelity-sweep.json"), "w") as f:
        json.dump(rows, f, indent=1)
        f.write("\n")
    with open(os.path.join(out, "fidelity-sweep.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=OPTION_COLUMNS + METRIC_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", required=True, help="keys .npy, [T, D] float32")
    parser.add_argument("--queries", required=True, help="queries .npy, [T, D] float32")
    parser.add_argument("--tool", default="build/bin/indexpool-fidelity",
                        help="indexpool-fidelity: a path (relative ones also from the "
                             "repository) or a name on PATH")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--last", type=int, default=256,
                        help="decode queries measured (the last N positions)")
    parser.add_argument("--score", choices=("uniform", "norm"), default="uniform")
    parser.add_argument("--rotate", action="store_true",
                        help="also run every format Hadamard-rotated")
    parser.add_argument("--title", default=None)
    parser.add_argument("--quick", action="store_true",
                        help=f"reduced sweep for tiny dumps: k in {QUICK_K} at P = 4, "
                             f"P in {QUICK_P} at k = 32, formats {QUICK_FORMATS}")
    args = parser.parse_args()
    tool = find_tool(args.tool)
    os.makedirs(args.out, exist_ok=True)

    formats, ks, ps, k_at_p, p_at_k, runs = sweep(args, tool)
    first = next(iter(runs.values()))
    setup = (f"T = {first['tokens']}, D = {first['dim']}, last {first['queries']} "
             f"queries, scores {first['score']}")
    title = f"{args.title}: {setup}" if args.title else setup
    plot(os.path.join(args.out, "fidelity-recall-vs-k.png"), ks, f"k (P = {k_at_p})",
         lambda fmt, rot, k: (fmt, rot, k_at_p, k), runs, formats, args.rotate,
         title, log2=True)
    plot(os.path.join(args.out, "fidelity-recall-vs-p.png"), ps, f"P (k = {p_at_k})",
         lambda fmt, rot, p: (fmt, rot, p, p_at_k), runs, formats, args.rotate,
         title, log2=True)
    write_numbers(args.out, runs)
    print(f"{len(runs)} runs; wrote fidelity-recall-vs-k.png, fidelity-recall-vs-p.png, "
          f"fidelity-sweep.json, fidelity-sweep.csv in {args.out}")


if __name__ == "__main__":
    main()
