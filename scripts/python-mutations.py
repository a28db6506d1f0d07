#!/usr/bin/env python3
"""Plants realistic bugs in the Python layer (python/indexpool/torch.py),
one at a time, and checks that the torch tests fail on each: the kill rate
of python/tests/test_torch_options.py and test_torch.py.

    /usr/bin/python3 scripts/python-mutations.py [BUILD_DIR]

BUILD_DIR (default build) holds the built extension (build/python). The
source file is restored after each mutant, also when interrupted. Exit
code 1 when a mutant survives."""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGET = ROOT / "python" / "indexpool" / "torch.py"
TESTS = ["python/tests/test_torch_options.py", "python/tests/test_torch.py"]

# (what the bug is, the text, what it becomes); each text occurs in
# torch.py, the first occurrence is replaced.
MUTANTS = [
    ("cache key without the builder's arguments",
     "key = (builder.__name__, args, tuple(sorted(options.items())), in_place)",
     "key = (builder.__name__, tuple(sorted(options.items())), in_place)"),
    ("cache key without the builder's options",
     "key = (builder.__name__, args, tuple(sorted(options.items())), in_place)",
     "key = (builder.__name__, args, in_place)"),
    ("compress ignores rotate",
     "keys, ops.compress, (-1, keys.shape[1]), key_type, pool_size, rotate,",
     "keys, ops.compress, (-1, keys.shape[1]), key_type, pool_size, True,"),
    ("compress ignores temperature",
     "temperature=float(temperature), codes=codes, pow2_scale=pow2_scale)",
     "temperature=1.0, codes=codes, pow2_scale=pow2_scale)"),
    ("select ignores k",
     "query, ops.select, (queries, heads, dim), query_type, -1, k,",
     "query, ops.select, (queries, heads, dim), query_type, -1, 16,"),
    ("select ignores valid",
     "pool_size, rotate, codes=code_type, valid=valid is not None)",
     "pool_size, rotate, codes=code_type, valid=False)"),
    ("compress_paged ignores scales_first",
     "page_entries=page_entries, scales_first=scales_first,\n"
     "        per_channel_scores=per_channel, bias=bias_kind,\n"
     "        temperature=float(temperature), pow2_scale=pow2_scale)",
     "page_entries=page_entries, scales_first=False,\n"
     "        per_channel_scores=per_channel, bias=bias_kind,\n"
     "        temperature=float(temperature), pow2_scale=pow2_scale)"),
    ("select_paged ignores page_entries",
     "pool_size, rotate, codes=codes, page_entries=page_entries,\n"
     "        scales_first=scales_first)",
     "pool_size, rotate, codes=codes, page_entries=64,\n"
     "        scales_first=scales_first)"),
    ("index tensors narrowed without a range check",
     "if low < info.min or high > info.max:",
     "if False:"),
]


def run_tests(build):
    env = dict(os.environ, PYTHONPATH=str(build / "python"),
               INDEXPOOL_TEST_BUILD=str(build))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
         *TESTS], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    return result.returncode


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build")
    build = build.resolve()
    original = TARGET.read_text()
    if run_tests(build) != 0:
        sys.exit("python-mutations: the tests fail without a mutant")
    killed = 0
    try:
        for what, text, bug in MUTANTS:
            if text not in original:
                sys.exit(f"python-mutations: '{what}': its text is no longer "
                         "in torch.py; update the mutant")
            TARGET.write_text(original.replace(text, bug, 1))
            dead = run_tests(build) != 0
            killed += dead
            print(f"{'killed  ' if dead else 'SURVIVED'}  {what}")
    finally:
        TARGET.write_text(original)
    print(f"{killed} of {len(MUTANTS)} mutants killed")
    sys.exit(0 if killed == len(MUTANTS) else 1)


if __name__ == "__main__":
    main()
