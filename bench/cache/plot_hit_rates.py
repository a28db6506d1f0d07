#!/usr/bin/env python3
"""Draws the device-tier hit rate against the device budget, one panel per
trace and one line per policy, from indexpool-cache-sim --json output.
Usage: plot_hit_rates.py RESULTS.json OUT.png   (matplotlib from Debian)
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")  # no display
import matplotlib.pyplot as plt  # noqa: E402


def main():
    results = json.load(open(sys.argv[1]))
    traces = list(dict.fromkeys(r["trace"] for r in results))
    fig, axes = plt.subplots(1, len(traces), figsize=(4.2 * len(traces), 3.4),
                             squeeze=False)
    for ax, trace in zip(axes[0], traces):
        rows = [r for r in results if r["trace"] == trace]
        for policy in dict.fromkeys(r["policy"] for r in rows):
            points = sorted((r["device_pages"], r["device_hits"] / r["references"])
                            for r in rows if r["policy"] == policy)
            ax.plot([p for p, _ in points], [100 * h for _, h in points],
                    marker="o", label=policy)
        ax.set_title(trace)
        ax.set_xscale("log")
        ax.set_xlabel("device budget (pages)")
        ax.set_ylabel("device hit rate (%)")
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
