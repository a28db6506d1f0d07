#!/usr/bin/env python3
"""Each CPU op's speed as a fraction of the host's own peak, in one run.

First the peaks, all threads (indexpool-bench-cpu-peaks: f32 FMA, bf16 dot,
int8 dot, memcpy), then, JIT-compiled by indexpool-run --benchmark at one
decode step of a 2^20-token context (bench/cpu/peaks.mlir: one query row,
H = 64, D = 128, 2^18 pooled entries, k = 512), for f8E4M3FN, i8 and i4
codes (i8, i4 also with the query quantized to int8, --int8-query):
select, select_paged and refine_paged, in GMAC/s against the bf16
dot peak (f8E4M3FN) or the int8 dot peak (i8, i4); compress
(bench/cpu/compress.mlir) in GB/s against memcpy; and the decode step of
the README's serving example (examples/glm5_serving.mlir at 64K tokens),
measured as scripts/run-example.sh does. Prints the issue's targets beside
the fractions; n/a where an op or a peak does not exist on this host.
Usage: bench/cpu/peaks.py [--build DIR] [--reps N]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    # The python3 on PATH may be one without NumPy (a pyenv shim); the
    # system's has it (python3-numpy, which the project's scripts install).
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("peaks.py: needs NumPy (apt-get install python3-numpy)")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")

H, D, P = 64, 128, 4
POOLS = 1 << 18                # pooled entries of 2^20 tokens
E, TIER_E = 64, 256            # entries a page: pooled, token tier
PAGES = POOLS // E             # 4096, also the token tier's (TIER_E = P * E)
CANDIDATES, REFINE_POOLS = 8195, 2048   # peaks.mlir's refine_paged
CODES = (("f8", "f8E4M3FN"), ("i8", "i8"), ("i4", "i4"))
SERVING_TOKENS, SERVING_STEPS = 65536, 256   # scripts/run-example.sh's

# The issue's targets: the fraction of the peak each op must reach.
TARGETS = {("select", "f8"): 0.60, ("select", "i8"): 0.50,
           ("select", "i4"): 0.50, ("compress", "f8"): 0.80}
DECODE_TARGET_MS = 1.0


def variants():
    """(code, query, indexpool-run flags) per measured row: every code type
    with the exact query, and the integer codes also with the query
    quantized to int8 (--int8-query: the int8 dot, approximate)."""
    for code, _ in CODES:
        yield code, "exact", ()
        if code in ("i8", "i4"):
            yield code, "int8", ("--int8-query",)


def find_binary(build, name):
    path = os.path.join(build, "bin", name)
    if not os.access(path, os.X_OK):
        sys.exit(f"peaks.py: {path} not found: build it first "
                 f"(cmake --build {build} --target {name})")
    return path


def peaks(binary, reps):
    """The `name value` lines of indexpool-bench-cpu-peaks; None for n/a."""
    out = subprocess.run([binary, str(reps)], check=True, capture_output=True,
                         text=True).stdout
    values = {}
    for line in out.splitlines():
        name, value = line.split()
        try:
            values[name] = float(value)
        except ValueError:
            values[name] = None if value == "n/a" else value
    return values


class Runner:
    """indexpool-run --benchmark: the best ms of the runs and the effective
    GB/s at that time, or None and why. The best, not the median: the peaks
    are each the best of their runs (a few seconds of loops), and on a
    shared machine an op's median carries more of whatever the neighbours
    run meanwhile. Under a sustained load both drop: compare runs by their
    fractions, and only quiet runs with each other."""

    def __init__(self, binary, reps):
        self.binary, self.reps = binary, reps

    def time(self, mlir, function, inputs=None, outputs=(), extra=()):
        cmd = [self.binary, mlir, f"--function={function}",
               f"--benchmark={self.reps}", *extra]
        cmd += (["--random-inputs=1"] if inputs is None
                else [f"--input=@{path}" for path in inputs])
        cmd += [f"--output=@{path}" for path in outputs]
        run = subprocess.run(cmd, capture_output=True, text=True)
        m = re.search(r"median_ms=([0-9.]+) effective_GBps=([0-9.]+) "
                      r"best_ms=([0-9.]+)", run.stdout)
        if run.returncode != 0 or not m:
            # Why, in one line: the first error (the diagnostic), else the last.
            lines = (run.stderr or run.stdout).strip().splitlines()
            errors = [line for line in lines if "error:" in line]
            why = errors[0] if errors else (
                lines[-1] if lines else f"exit {run.returncode}")
            return None, None, why
        median, gbps, best = (float(m.group(i)) for i in (1, 2, 3))
        return best, gbps * median / best if best > 0 else 0.0, None


def write_inputs(tmp, rng):
    """The paged ops' inputs as .npy files: one query row, a shuffled block
    table, a full 2^20-token length and 2048 pools' candidate tokens; the
    pages per code type come from `pages`."""
    def save(name, array):
        path = os.path.join(tmp, name + ".npy")
        np.save(path, array)
        return path

    # bf16 query as f32 values (indexpool-run rounds them to bf16).
    files = {
        "q": save("q", rng.standard_normal((1, 1, H, D)).astype(np.float32)),
        "w": save("w", rng.random((1, 1, H)).astype(np.float32)),
        "table": save("table", rng.permutation(PAGES).astype(np.int32)
                      .reshape(1, PAGES)),
        "len": save("len", np.array([[POOLS * P]], np.int32)),
    }
    # What select_paged hands refine_paged: the tokens of its best pools
    # (distinct, in score order: here a random one), then the tail's
    # P - 1 slots, empty (-1) at a length that is a multiple of P.
    pools = rng.choice(POOLS, REFINE_POOLS, replace=False)
    tokens = (pools[:, None] * P + np.arange(P)).reshape(-1)
    cand = np.concatenate([tokens, -np.ones(CANDIDATES - tokens.size)])
    files["cand"] = save("cand", cand.astype(np.int32).reshape(1, 1, -1))
    return files, save


def pages(code, entries, rng):
    """`PAGES` pages of `entries` valid entries each: codes of the type
    (never an FP8 NaN; i8 in [-127, 127]; i4 in [-7, 7], two a byte) and
    then positive f32 scales, as compress_paged lays them out."""
    n = PAGES * entries
    if code == "f8":
        codes = rng.integers(0, 256, (n, D), dtype=np.uint8)
        codes[(codes & 0x7F) == 0x7F] = 0           # 0x7F, 0xFF: NaN
    elif code == "i8":
        codes = rng.integers(-127, 128, (n, D), dtype=np.int8).view(np.uint8)
    else:
        nibbles = rng.integers(-7, 8, (n, D), dtype=np.int8).view(np.uint8) & 0xF
        codes = nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)
    scales = (1e-3 + 9e-3 * rng.random(n)).astype("<f4")
    return np.concatenate(
        [codes.reshape(PAGES, -1),
         scales.view(np.uint8).reshape(PAGES, -1)], axis=1).view(np.int8)


def decode_step(runner, tmp):
    """scripts/run-example.sh's decode step: (@serve - @prefill) / steps at
    64K tokens, each step an append_paged and a select_paged; and the
    select_paged alone (@steps, step 0's query row over the prefill's
    pages). Returns (step ms, select ms, why not)."""
    data = os.path.join(tmp, "serving")
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    # EVERY = STEPS: the @steps inputs hold one row, step 0's.
    make = subprocess.run(
        [python, os.path.join(ROOT, "examples", "serving_inputs.py"), "make",
         data, str(SERVING_TOKENS), str(SERVING_STEPS), str(SERVING_STEPS)],
        capture_output=True, text=True)
    if make.returncode != 0:
        return None, None, "serving_inputs.py make failed: " + \
            (make.stderr.strip().splitlines() or ["?"])[-1]
    mlir = os.path.join(ROOT, "examples", "glm5_serving.mlir")

    def inputs(*names):
        return [os.path.join(data, n + ".npy") for n in names]

    prefilled = os.path.join(data, "prefilled.npy")
    prefill, _, why = runner.time(mlir, "prefill",
                                  inputs("keys", "scores", "pages", "slots"),
                                  [prefilled])
    if why:
        return None, None, why
    serve, _, why = runner.time(mlir, "serve", inputs(
        "keys", "scores", "pages", "slots", "table", "tail_keys",
        "tail_scores", "lengths", "new_keys", "new_scores", "queries",
        "head_weights"))
    step = None if why else (serve - prefill) / SERVING_STEPS
    select, _, why2 = runner.time(mlir, "steps", inputs(
        "check_queries", "check_weights") + [prefilled] +
        inputs("check_table", "check_lengths"))
    return step, select, why or why2


def fmt(value, spec):
    return "n/a" if value is None else format(value, spec)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    peaks_bin = find_binary(args.build, "indexpool-bench-cpu-peaks")
    runner = Runner(find_binary(args.build, "indexpool-run"), args.reps)

    peak = peaks(peaks_bin, args.reps)
    print(f"peaks, {int(peak['threads'])} threads, best of {args.reps}: "
          f"f32 FMA {fmt(peak['f32_fma_gmacs'], '.1f')} GMAC/s "
          f"({peak['f32_fma_isa']}), bf16 dot {fmt(peak['bf16_dot_gmacs'], '.1f')}, "
          f"int8 dot {fmt(peak['int8_dot_gmacs'], '.1f')} GMAC/s, "
          f"memcpy {fmt(peak['memcpy_gbps'], '.1f')} GB/s (read + written)")
    dot_peak = {"f8": ("bf16 dot", peak["bf16_dot_gmacs"]),
                "i8": ("int8 dot", peak["int8_dot_gmacs"]),
                "i4": ("int8 dot", peak["int8_dot_gmacs"])}

    mlir = os.path.join(HERE, "peaks.mlir")
    select_macs = H * POOLS * D                  # M = 1: the score's MACs
    refine_macs = H * REFINE_POOLS * P * D       # the candidates scored
    # Per op, one row per code type: (code, ms, MACs, peak name, peak, why).
    rows = {"select": [], "select_paged": [], "refine_paged": []}
    rng = np.random.default_rng(37)
    with tempfile.TemporaryDirectory() as tmp:
        files, save = write_inputs(tmp, rng)
        for code, variant, extra in variants():
            if code == "i4":
                ms, why = None, "no dense i4 codes: select's keys are f32, " \
                                "f16, bf16, i8 or f8E4M3FN"
            else:
                ms, _, why = runner.time(mlir, f"select_{code}", extra=extra)
            rows["select"].append((code, variant, ms, select_macs,
                                   *dot_peak[code], why))
        for code, variant, extra in variants():
            pooled = save("pages", pages(code, E, rng))
            ms, _, why = runner.time(mlir, f"select_paged_{code}", [
                files["q"], files["w"], pooled, files["table"], files["len"]],
                extra=extra)
            rows["select_paged"].append((code, variant, ms, select_macs,
                                         *dot_peak[code], why))
            tier = save("tier", pages(code, TIER_E, rng))
            ms, _, why = runner.time(mlir, f"refine_paged_{code}", [
                files["q"], files["w"], files["cand"], tier, files["table"],
                files["len"]], extra=extra)
            rows["refine_paged"].append((code, variant, ms, refine_macs,
                                         *dot_peak[code], why))
            os.remove(tier)   # 138 MB at 8-bit codes
        compress_ms, compress_gbps, compress_why = runner.time(
            os.path.join(HERE, "compress.mlir"), "compress")
        step_ms, select_ms, step_why = decode_step(runner, tmp)

    names = dict(CODES)
    print(f"\n{'op':13} {'codes':9} {'query':6} {'best ms':>10} "
          f"{'speed':>15} {'peak':>23} {'fraction':>8}  target")
    for op, code, variant, t, macs, peak_name, peak_value, why in (
            (op, *row) for op, op_rows in rows.items() for row in op_rows):
        speed = None if t is None else macs / (t * 1e-3) / 1e9
        frac = None if speed is None or peak_value is None else speed / peak_value
        target = TARGETS.get(("select" if op.startswith("select") else op, code))
        print(f"{op:13} {names[code]:9} {variant:6} {fmt(t, '10.3f'):>10} "
              f"{fmt(speed, '8.1f'):>8} GMAC/s "
              f"{peak_name:>8} {fmt(peak_value, '7.1f'):>7} GMAC/s "
              f"{fmt(frac, '.3f'):>8}"
              + (f"  target >= {target:.2f}" if target else "")
              + (f"  ({why})" if why else ""))
    # As bench/cpu/run.py compares: compress's bytes (in + out) per second
    # against a copy's bytes copied per second (half of read + written).
    copy = peak["memcpy_gbps"] / 2 if peak["memcpy_gbps"] else None
    frac = None if compress_gbps is None or not copy else compress_gbps / copy
    print(f"{'compress':13} {'f8E4M3FN':9} {'':6} "
          f"{fmt(compress_ms, '10.3f'):>10} "
          f"{fmt(compress_gbps, '8.1f'):>8} GB/s   {'memcpy':>8} "
          f"{fmt(copy, '7.1f'):>7} GB/s   {fmt(frac, '.3f'):>8}"
          f"  target >= {TARGETS[('compress', 'f8')]:.2f}"
          + (f"  ({compress_why})" if compress_why else ""))
    print("  (query: exact, or int8 = --int8-query, the query quantized per "
          "head: approximate, docs/design.md, CPU targets)")
    print("  (MACs: H * N * D of the score for the one query row, N = 2^18 "
          "entries for select and\n   select_paged, the 8192 candidate "
          "tokens for refine_paged)")
    print("  (compress: the bytes of its inputs and outputs per second; "
          "memcpy: the bytes it copies per second,\n   half of read + "
          "written: bench/cpu/run.py's ratio)")
    print(f"\ndecode step of examples/glm5_serving.mlir, {SERVING_TOKENS} "
          f"tokens, H = {H}, k = 512 (scripts/run-example.sh's way, "
          f"{SERVING_STEPS} steps):")
    print(f"  append_paged + select_paged  {fmt(step_ms, '8.3f')} ms  "
          f"target <= {DECODE_TARGET_MS:.1f} ms"
          + (f"  ({step_why})" if step_why else ""))
    print(f"  select_paged alone (@steps)  {fmt(select_ms, '8.3f')} ms")


if __name__ == "__main__":
    main()
