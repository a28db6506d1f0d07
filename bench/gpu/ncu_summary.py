#!/usr/bin/env python3
"""Per-kernel GPU times from Nsight Compute's CSV (run-on-device.sh's profile
stage: ncu --metrics gpu__time_duration.sum --csv indexpool-launch ...).
Prints one line per kernel launch, in launch order, and the sum.
Usage: ncu_summary.py LABEL FILE.csv
"""
import csv
import sys

SCALE_US = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0,
            "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}


def main():
    label, path = sys.argv[1], sys.argv[2]
    # ncu's CSV rows start with a quote; the launcher's own output does not.
    with open(path, errors="replace") as f:
        rows = list(csv.DictReader(line for line in f if line.startswith('"')))
    launches = []
    for row in rows:
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        launches.append((row["Kernel Name"], row.get("Grid Size", ""),
                         row.get("Block Size", ""),
                         value * SCALE_US.get(row.get("Metric Unit", "ns"), 1e-3)))
    if not launches:
        print(f"{label}: no kernel times in {path}")
        return
    total = sum(us for *_, us in launches)
    print(f"{label}: {len(launches)} launches, {total:.1f} us of kernel time")
    for name, grid, block, us in launches:
        print(f"  {us:9.1f} us  {100 * us / total:5.1f}%  {name} grid {grid} block {block}")


if __name__ == "__main__":
    main()
