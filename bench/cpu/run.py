#!/usr/bin/env python3
"""The CPU benchmark of compress and select, with its anchors, in one run.

Measures on the same machine, one after the other:
  (a) memcpy of as many bytes as compress reads and writes (1 thread and
      all threads; the ratio uses the faster),
  (b) a plain C++ loop computing compress (one thread),
  (c) the same computation in NumPy, when numpy is importable,
  (d) the JIT-compiled compress and select (indexpool-run --benchmark),
and prints the ratios. Usage: bench/cpu/run.py [--build DIR] [--reps N]
(T = 2^20, D = 128, as in bench/cpu/compress.mlir).
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
T, D = 1 << 20, 128


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return out.stdout


def indexpool_run(build, function, reps):
    out = run([os.path.join(build, "bin", "indexpool-run"),
               os.path.join(HERE, "compress.mlir"), f"--function={function}",
               "--random-inputs=1", f"--benchmark={reps}"])
    m = re.search(r"median_ms=([0-9.]+) effective_GBps=([0-9.]+)", out)
    return float(m.group(1)), float(m.group(2))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()

    anchors = {}
    for line in run([os.path.join(args.build, "bin", "indexpool-bench-baseline"),
                     str(T), str(D), str(args.reps)]).splitlines():
        name, ms, nbytes = line.split()
        anchors[name] = (float(ms), int(nbytes))
    copy_ms, nbytes = anchors["memcpy"]
    threaded = [k for k in anchors if k.startswith("memcpy_")][0]
    threaded_ms, _ = anchors[threaded]
    # The compiled code runs on all threads: the anchor is the faster copy.
    best_copy_ms = min(copy_ms, threaded_ms)
    scalar_ms, _ = anchors["cxx_scalar_compress"]

    numpy_ms = None
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    try:
        out = run([python, os.path.join(HERE, "numpy_compress.py"), str(T), str(D),
                   str(max(1, min(args.reps, 3)))])
        numpy_ms = float(out.split()[1])
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        print(f"(numpy not available: {e})")

    compress_ms, compress_gbps = indexpool_run(args.build, "compress", args.reps)
    select_ms, select_gbps = indexpool_run(args.build, "select", args.reps)

    gb = nbytes / 1e9
    print(f"compress, T={T}, D={D}, bf16 keys, per-channel scores, rotate, fp8 pow2; "
          f"{gb:.3f} GB moved (inputs + outputs)")
    print(f"  memcpy, 1 thread        {copy_ms:9.2f} ms  {gb / copy_ms * 1e3:7.2f} GB/s")
    print(f"  {threaded:<24}{threaded_ms:9.2f} ms  {gb / threaded_ms * 1e3:7.2f} GB/s")
    print(f"  plain C++ (1 thread)    {scalar_ms:9.2f} ms  {gb / scalar_ms * 1e3:7.2f} GB/s")
    if numpy_ms is not None:
        print(f"  numpy                   {numpy_ms:9.2f} ms  {gb / numpy_ms * 1e3:7.2f} GB/s")
    print(f"  indexpool compress (JIT){compress_ms:9.2f} ms  {compress_gbps:7.2f} GB/s")
    print(f"select, N={T // 4} fp8 pools, 64 heads, k=512 pools -> 2048 tokens")
    print(f"  indexpool select (JIT)  {select_ms:9.2f} ms  {select_gbps:7.2f} GB/s")
    print("ratios")
    print(f"  compress bandwidth / best memcpy bandwidth = {best_copy_ms / compress_ms:.2f}")
    print(f"  plain C++ time / compress time             = {scalar_ms / compress_ms:.2f}")
    if numpy_ms is not None:
        print(f"  numpy time / compress time                 = {numpy_ms / compress_ms:.2f}")


if __name__ == "__main__":
    main()
