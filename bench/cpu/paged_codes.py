#!/usr/bin/env python3
"""The paged ops' code types on the CPU, f8E4M3FN the anchor, in one run.

select_paged (one query row of 64 heads over 64K tokens: 16384 pooled
entries of D = 128 in 256 pages of 64) and compress_paged (the 64K tokens
into those pages), JIT-compiled by indexpool-run --benchmark for f8E4M3FN,
i8 and i4 codes (bench/cpu/paged-codes.mlir) on the same inputs: every
page written by compress (valid codes), the whole table read. Prints each
median and its ratio to f8E4M3FN's, measured in this run. Usage:
bench/cpu/paged_codes.py [--build DIR] [--reps N]
"""
import argparse
import os
import re
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

TOKENS, D, P, E, PAGES = 1 << 16, 128, 4, 64, 256
CODES = ("f8", "i8", "i4")


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def median_ms(build, function, inputs, reps, outputs=()):
    cmd = [os.path.join(build, "bin", "indexpool-run"),
           os.path.join(HERE, "paged-codes.mlir"), f"--function={function}",
           f"--benchmark={reps}"]
    cmd += [f"--input=@{path}" for path in inputs]
    cmd += [f"--output=@{path}" for path in outputs]
    m = re.search(r"median_ms=([0-9.]+)", run(cmd))
    return float(m.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build",
                        default=os.path.join(HERE, "..", "..", "build"))
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        def save(name, dtype, shape, values):
            path = os.path.join(tmp, name + ".npy")
            np.save(path, np.asarray(values, dtype=dtype).reshape(shape))
            return path

        # bf16 keys as f32 values (indexpool-run rounds them to bf16).
        keys = save("keys", "<f4", (TOKENS, D),
                    rng.standard_normal(TOKENS * D).astype(np.float32))
        scores = save("scores", "<f4", (TOKENS,),
                      rng.standard_normal(TOKENS).astype(np.float32))
        slots = save("slots", "<i8", (TOKENS // P,),
                     rng.permutation(TOKENS // P).astype(np.int64))
        query = save("q", "<f4", (1, 1, 64, D),
                     rng.standard_normal(64 * D).astype(np.float32))
        weights = save("w", "<f4", (1, 1, 64),
                       rng.random(64).astype(np.float32))
        table = save("table", "<i4", (1, PAGES),
                     np.arange(PAGES, dtype=np.int32))
        lengths = save("len", "<i4", (1, 1), np.array([TOKENS], np.int32))
        rows = []
        for code in CODES:
            width = E * ((D // 2 if code == "i4" else D) + 4)
            empty = save("empty-" + code, "|i1", (PAGES, width),
                         np.zeros(PAGES * width, np.int8))
            pages = os.path.join(tmp, "pages-" + code + ".npy")
            compress = median_ms(args.build, "compress_" + code,
                                 [keys, scores, empty, slots], args.reps,
                                 [pages])
            select = median_ms(args.build, "select_" + code,
                               [query, weights, pages, table, lengths],
                               args.reps)
            rows.append((code, width, compress, select))
    anchor = rows[0]
    print("code  page bytes  compress_paged ms (/ f8)  select_paged ms (/ f8)")
    for code, width, compress, select in rows:
        print(f"{code:4}  {width:10}  {compress:10.3f} ({compress / anchor[2]:.2f}x)"
              f"  {select:10.3f} ({select / anchor[3]:.2f}x)")


if __name__ == "__main__":
    main()
