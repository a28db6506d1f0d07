#!/usr/bin/python3
"""Plots an indexpool-tune search: DIR/search.png from DIR/plan.json and
DIR/measurements.json (docs/tuning.md).

One panel per op: the median time of each candidate in evaluation order
(candidate 0 is the cost model's choice) and the best time so far. The
times are labelled with their source: CPU, GPU, or the fake CUDA driver of
the tests, whose times are not GPU times.

usage: plot_search.py DIR [--output=FILE]
Exit status: 0, 1 on a bad folder, 3 when matplotlib is missing.
"""
import json
import os
import sys


def load(directory):
    with open(os.path.join(directory, "plan.json")) as f:
        plan = json.load(f)
    with open(os.path.join(directory, "measurements.json")) as f:
        measured = json.load(f)
    return plan, measured


def series(plan, measured):
    """{(op_index, op, shape_class): [(candidate number, median or None)]}"""
    by_id = {m["id"]: m for m in measured["candidates"]}
    out = {}
    for c in plan["candidates"]:
        key = (c["op_index"], c["op"], c["shape_class"])
        m = by_id.get(c["id"])
        ok = m is not None and m.get("status") == "ok"
        out.setdefault(key, []).append((c["candidate"], m["median_ms"] if ok else None))
    return out


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 1
    directory = argv[1]
    output = os.path.join(directory, "search.png")
    for arg in argv[2:]:
        if arg.startswith("--output="):
            output = arg[len("--output="):]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        print("plot_search.py: matplotlib is missing (python3 -m pip install "
              "matplotlib, or apt-get install python3-matplotlib)", file=sys.stderr)
        return 3
    try:
        plan, measured = load(directory)
        panels = series(plan, measured)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"plot_search.py: {directory}: {e}", file=sys.stderr)
        return 1
    label = measured.get("time_label", measured.get("source", "time"))
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 2.8 * len(panels)),
                             squeeze=False)
    for ax, ((index, op, shape), points) in zip(axes[:, 0], sorted(panels.items())):
        xs = [n for n, t in points if t is not None]
        ys = [t for n, t in points if t is not None]
        failed = [n for n, t in points if t is None]
        ax.plot(xs, ys, "o", label="median per candidate")
        best, best_line = None, []
        for t in ys:
            best = t if best is None else min(best, t)
            best_line.append(best)
        ax.step(xs, best_line, where="post", label="best so far")
        model = [t for n, t in points if n == 0 and t is not None]
        if model:
            ax.axhline(model[0], color="grey", linestyle=":",
                       label="cost model (candidate 0)")
        for n in failed:
            ax.axvline(n, color="red", alpha=0.3)
        ax.set_title(f"{op} (op {index}) {shape}", fontsize=9)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("candidate (evaluation order)")
        ax.set_ylabel(f"median ms ({label})", fontsize=8)
        ax.legend(fontsize=7)
    fig.suptitle(f"@{plan['function']} on {plan['chip']}: {label}", fontsize=10)
    fig.tight_layout()
    fig.savefig(output, dpi=90)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
