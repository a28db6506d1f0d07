"""What Python adds to a call of a small compiled compress.

The same compress (bf16 keys [T, D], per-token scores, Hadamard, FP8 codes)
called four ways, each timed per call over many calls (median):

  kernel        the C++ API's CpuFunction::call timed from C++, into
                preallocated outputs (the anchor: no Python in the loop)
  numpy_out     f(keys, scores, out=(codes, scales)) on NumPy arrays
  numpy_call    f(keys, scores): new result arrays every call
  torch_call    f(keys_t, scores_t) on torch tensors, tensors back
  torch_op      torch.ops.indexpool.compress(keys_t, scores_t, ...)

Prints one line per path: NAME_us=... kernel_us=... overhead_us=...
ratio=... (the path's median over the kernel's, measured in the same run).
The aim is an overhead under 20 us per call.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python/call_overhead.py
           [--tokens 1024] [--dim 128] [--threads 1] [--repeats 2000]
"""

import argparse
import statistics
import time

import numpy as np

import indexpool

try:
    import torch

    import indexpool.torch  # noqa: F401  (torch.ops.indexpool.*)
except ImportError:
    torch = None


def median_us(call, repeats):
    for _ in range(min(100, repeats)):
        call()
    times = []
    clock = time.perf_counter
    for _ in range(repeats):
        start = clock()
        call()
        times.append(clock() - start)
    return statistics.median(times) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=2000)
    args = parser.parse_args()

    module = indexpool.ops.compress((-1, args.dim), "bf16", pool_size=4,
                                    rotate=True)
    function = indexpool.compile(module, threads=args.threads)
    rng = np.random.default_rng(7)
    keys = indexpool.encode_bf16(
        rng.standard_normal((args.tokens, args.dim), dtype=np.float32))
    scores = rng.standard_normal(args.tokens, dtype=np.float32)
    out = (np.empty((args.tokens // 4, args.dim), np.uint8),
           np.empty(args.tokens // 4, np.float32))

    # Warm up, then the anchor: the C++ call in a C++ loop.
    function(keys, scores, out=out)
    function._compiled.time_calls((keys, scores), out, 100)
    kernel_us = statistics.median(
        function._compiled.time_calls((keys, scores), out, args.repeats)) * 1e6

    paths = {
        "numpy_out": lambda: function(keys, scores, out=out),
        "numpy_call": lambda: function(keys, scores),
    }
    if torch is not None:
        torch.set_num_threads(max(1, args.threads))
        indexpool.torch.compile_options["threads"] = args.threads
        keys_t = torch.from_numpy(keys.view(np.int16)).view(torch.bfloat16)
        scores_t = torch.from_numpy(scores)
        compress = torch.ops.indexpool.compress
        compress(keys_t, scores_t)  # compiles its own function once
        paths["torch_call"] = lambda: function(keys_t, scores_t)
        paths["torch_op"] = lambda: compress(keys_t, scores_t)
    else:
        print("torch not found: the torch paths are skipped")

    print(f"# compress T={args.tokens} D={args.dim} bf16 -> f8E4M3FN, "
          f"threads={args.threads}, {args.repeats} calls per path")
    for name, call in paths.items():
        us = median_us(call, args.repeats)
        print(f"{name}_us={us:.2f} kernel_us={kernel_us:.2f} "
              f"overhead_us={us - kernel_us:.2f} ratio={us / kernel_us:.3f}")


if __name__ == "__main__":
    main()
