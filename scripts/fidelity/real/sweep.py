#!/usr/bin/env python3
"""indexpool-fidelity over every layer and head of a make-dump.sh dump.

  sweep.py DUMP_DIR [--tool=build/bin/indexpool-fidelity] [--last=256]
      [--pool-size=4] [--k=256,2048] [--refine=0,2,4] [--formats=none,fp8]
      [--out=FILE.json]
runs `indexpool-fidelity --json` on DUMP_DIR/layerL/headH for each k and
refine factor (0: select alone), with --format=none and with --format=fp8
--rotate (--formats picks), and prints one Markdown table
row per head and configuration plus the mean over heads (recall, recall p10,
mass recall, angle mean / median / p95, reconstruction without a residual);
--out keeps every run's JSON object.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
CONFIGS = (("none", False), ("fp8", True))
COLUMNS = ("recall", "recall_p10", "mass_recall", "angle_mean_deg",
           "angle_median_deg", "angle_p95_deg", "recon_none")


def row(label, values):
    cells = [f"{100 * values[c]:.1f}%" if not c.startswith("angle")
             else f"{values[c]:.1f}°" for c in COLUMNS]
    return f"| {label} | " + " | ".join(cells) + " |"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump")
    parser.add_argument("--tool", default=os.path.join(
        REPO, "build", "bin", "indexpool-fidelity"))
    parser.add_argument("--last", type=int, default=256)
    parser.add_argument("--pool-size", type=int, default=4)
    parser.add_argument("--k", default="256,2048")
    parser.add_argument("--refine", default="0")
    parser.add_argument("--formats", default="none,fp8")
    parser.add_argument("--out")
    args = parser.parse_args()
    configs = [c for c in CONFIGS if c[0] in args.formats.split(",")]
    heads = sorted(glob.glob(os.path.join(args.dump, "layer*", "head*")),
                   key=lambda d: [int("".join(filter(str.isdigit, part)))
                                  for part in d.split(os.sep)[-2:]])
    if not heads:
        sys.exit(f"sweep.py: error: no layer*/head* folders in {args.dump}")
    runs = []
    print("| head | recall | p10 | mass recall | angle mean | median | p95 "
          "| recon none |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for k, refine, (fmt, rotate) in ((k, c, f) for k in args.k.split(",")
                                 for c in args.refine.split(",")
                                 for f in configs):
        k, refine = int(k), int(refine)
        tag = (f"k = {k}{f', refine {refine}' if refine else ''}, {fmt}"
               f"{' rotated' if rotate else ''}")
        results = []
        for head in heads:
            cmd = [args.tool, f"--keys=@{head}/keys.npy",
                   f"--queries=@{head}/queries.npy",
                   f"--pool-size={args.pool_size}", f"--k={k}",
                   f"--format={fmt}", f"--last={args.last}",
                   f"--refine={refine}", "--json"]
            if rotate:
                cmd.append("--rotate")
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"sweep.py: error: {' '.join(cmd)} failed:\n"
                         f"{done.stderr.strip()}")
            result = json.loads(done.stdout)
            name = "/".join(head.split(os.sep)[-2:])
            runs.append({"head": name, **result})
            results.append(result)
            print(row(f"{tag}: {name}", result))
        mean = {c: sum(r[c] for r in results) / len(results)
                for c in COLUMNS}
        print(row(f"**{tag}: mean of {len(results)}**", mean))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(runs, f, indent=1)


if __name__ == "__main__":
    main()
