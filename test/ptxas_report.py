#!/usr/bin/env python3
"""Runs `ptxas -v` on a PTX file and reports, per kernel, the registers, the
stack frame and the spills; --no-spills / --no-stack turn them into checks.

Usage: ptxas_report.py --arch=sm_90 [--no-spills] [--no-stack] FILE.ptx
ptxas comes from $CUDA_HOME/bin (default /usr/local/cuda).
"""
import argparse
import os
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True)
    parser.add_argument("--no-spills", action="store_true")
    parser.add_argument("--no-stack", action="store_true")
    parser.add_argument("ptx")
    args = parser.parse_args()

    ptxas = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")
    run = subprocess.run([ptxas, "-v", f"-arch={args.arch}", args.ptx, "-o", os.devnull],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"ptxas_report: ptxas failed:\n{run.stderr}")

    kernels, current = {}, None
    for line in run.stderr.splitlines():
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            current = kernels.setdefault(m.group(1), {})
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                      r"(\d+) bytes spill loads", line)
        if m and current is not None:
            current.update(stack=int(m.group(1)), spill_stores=int(m.group(2)),
                           spill_loads=int(m.group(3)))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current is not None:
            current["registers"] = int(m.group(1))
    if not kernels:
        sys.exit("ptxas_report: ptxas -v reported no kernel")

    bad = []
    for name, k in sorted(kernels.items()):
        print(f"kernel {name} registers={k.get('registers', '?')} stack={k.get('stack', 0)} "
              f"spill_stores={k.get('spill_stores', 0)} spill_loads={k.get('spill_loads', 0)}")
        if args.no_spills and (k.get("spill_stores", 0) or k.get("spill_loads", 0)):
            bad.append(f"{name} spills")
        if args.no_stack and k.get("stack", 0):
            bad.append(f"{name} has a {k['stack']}-byte stack frame")
    if bad:
        sys.exit("ptxas_report: " + "; ".join(bad))


if __name__ == "__main__":
    main()
