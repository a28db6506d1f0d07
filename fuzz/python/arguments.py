#!/usr/bin/env python3
"""Hostile arguments for the Python and torch surface, drawn from a seed:
compiled functions, torch ops, indexpool.Cache and its restore, called with
values of the wrong kind, dtype, shape, device or layout (tuples of
addresses, meta and sparse tensors, int64 index tensors past int32, huge or
negative sizes, strings, None). Every call must return or raise an
Exception naming what it refused; a crash (the process dies), a hang (the
ctest timeout) or a BaseException that is not an Exception fails the run.

    python3 fuzz/python/arguments.py [--seed N] [--calls N]

Run by ctest as python-fuzz-arguments (PYTHONPATH: the build's python/)."""

import argparse
import os
import random
import sys
import tempfile

import numpy as np

import indexpool

try:
    import torch
    import indexpool.torch  # noqa: F401  (defines torch.ops.indexpool)
except ImportError:  # the torch part is skipped without torch
    torch = None

D = 32


def values(rng):
    """One hostile or ordinary value of any kind the API might be given."""
    shape = rng.choice([(0, D), (4, D), (8, D), (4,), (4, 4, D), (1, 1, 4, D),
                        (2**31, D), (3, D + 1), ()])
    pick = rng.randrange(16)
    if pick == 0:
        return (rng.randrange(0, 2**48), rng.randrange(-2, 20), shape,
                "float32")
    if pick == 1:
        return (rng.randrange(0, 2**48), "f32", shape)
    if pick == 2:
        return rng.choice([None, "keys", 7, -1, 2**70, 1.5, float("nan"),
                           [], {}, object(), b"\x00" * 16])
    if pick == 3:
        return [rng.random() for _ in range(rng.randrange(0, 6))]
    small = tuple(min(s, 64) for s in shape)
    dtype = rng.choice([np.float32, np.float16, np.float64, np.int8,
                        np.uint8, np.int32, np.int64, np.bool_])
    array = (np.random.default_rng(rng.randrange(2**32))
             .standard_normal(small) * 100).astype(dtype)
    if pick == 4:
        return array.T  # not contiguous
    if pick == 5 or torch is None:
        return array
    tensor = torch.from_numpy(np.ascontiguousarray(array))
    if pick == 6:
        return tensor.to("meta")
    if pick == 7 and tensor.dim() >= 1:
        return tensor.to_sparse()
    if pick == 8:
        return tensor.t() if tensor.dim() == 2 else tensor
    if pick == 9:
        return torch.full(small, rng.choice([2**32 + 1, -2**31 - 1, 2**40]),
                          dtype=torch.int64)
    return tensor


def call(what, function, *args, **kwargs):
    try:
        function(*args, **kwargs)
    except Exception as error:  # refused: fine, when it says something
        if not str(error) and not isinstance(error, (StopIteration,)):
            raise AssertionError(f"{what}: {type(error).__name__} with no "
                                 "message") from error


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--calls", type=int, default=400)
    options = parser.parse_args()
    rng = random.Random(options.seed)

    compress = indexpool.compile(indexpool.ops.compress((-1, D), "f32"),
                                 threads=1)
    cache = indexpool.Cache(layers=1, dim=D, pool_size=4, page_entries=4,
                            pages=16, heads=2, k=2, threads=1) \
        if indexpool.Cache is not None else None
    folder = tempfile.mkdtemp(prefix="indexpool-fuzz-python-")
    snapshot = os.path.join(folder, "cache.snap")
    if cache is not None:
        cache.add()
        cache.snapshot(snapshot)

    surfaces = [
        ("Function call", lambda a, b: compress(a, b)),
        ("Function out=", lambda a, b: compress(a, a, out=(b, a))),
        ("result_shapes", lambda a, b: compress.result_shapes(a, b)),
        ("reference", lambda a, b: indexpool.reference(
            compress.module, "compress", a, b)),
        ("compile input_shapes", lambda a, b: indexpool.compile(
            compress.module, input_shapes={0: a} if rng.random() < .5 else a)),
    ]
    if torch is not None:
        ops = torch.ops.indexpool
        surfaces += [
            ("torch compress", lambda a, b: ops.compress(a, b, None)),
            ("torch select", lambda a, b: ops.select(a, b, a, b, None,
                                                     rng.randrange(-1, 40))),
            ("torch select_paged", lambda a, b: ops.select_paged(
                a, b, a, b, a, rng.randrange(-1, 40), page_entries=4)),
            ("torch refine_paged", lambda a, b: ops.refine_paged(
                a, b, a, b, a, b, rng.randrange(-1, 40), page_entries=16)),
            ("torch compress_paged", lambda a, b: ops.compress_paged(
                a, b, None, a, b, page_entries=4)),
        ]
    if cache is not None:
        surfaces += [
            ("Cache.append", lambda a, b: cache.append([0], a, b)),
            ("Cache.select", lambda a, b: cache.select([0], 0, a, b)),
            ("Cache.fork/free", lambda a, b: cache.free(cache.fork(a))),
            ("Cache.length", lambda a, b: cache.length(a)),
            ("Cache.pages", lambda a, b: cache.pages(a)),
            ("Cache.restore", lambda a, b: indexpool.Cache.restore(
                snapshot if rng.random() < .5 else str(a), host_pages=1)),
            ("Cache()", lambda a, b: indexpool.Cache(
                layers=1, dim=D, pages=rng.choice([0, 1, 2**62]), heads=2,
                k=2, codes=rng.choice(["f8E4M3FN", "i4", "f16", "x"]))),
        ]
    for i in range(options.calls):
        what, surface = rng.choice(surfaces)
        call(f"call {i} ({what})", surface, values(rng), values(rng))
    print(f"fuzz-python-arguments: {options.calls} calls, seed "
          f"{options.seed}: no crash")


if __name__ == "__main__":
    sys.exit(main())
