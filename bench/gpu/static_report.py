#!/usr/bin/env python3
"""A static performance report of compiled kernels: ESTIMATES, no GPU ran.

For each manifest of indexpool-compile (docs/manifest.md) with a PTX binary,
per launch and for the manifest's chip: threads per block, grid, registers
per thread, spills (ptxas -v on the PTX), static + dynamic shared memory,
resident blocks per SM and occupancy (the CUDA occupancy calculator's rules,
below), waves, the bytes of the buffers the launch passes (each read or
written once: the least it can move) and the time that takes at the chip's
peak DRAM bandwidth. Per manifest: the launches' bytes against the
function's minimum (its inputs read once, its outputs written once).

Usage: static_report.py [--json] [--input-shape=I:AxB ...]
                        [--assume-registers=N] PATH...
PATH: a manifest, or a folder searched for manifests. Sizes are evaluated
by test/Tools/Inputs/eval_sizes.py with the chip's SM count; a manifest
with dynamic inputs takes --input-shape, else NAME.CHIP.shapes next to it
(bench/gpu/make-artifacts.sh writes them), else it is skipped with a note.
A cubin cannot be read back (ptxas -v needs PTX): compile with --emit=ptx.
ptxas comes from $CUDA_HOME/bin (default /usr/local/cuda).
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVAL_SIZES = os.path.join(ROOT, "test", "Tools", "Inputs", "eval_sizes.py")

# The facts of lib/Target/Chips.cpp this report needs, field names as there
# (test/Target/static-report.mlir checks that both tables agree).
CHIPS = {}
for _name, _part, _sms, _threads, _blocks, _smem_sm, _smem_block, _gbps in [
        ("sm_80", "A100 SXM4 80GB", 108, 2048, 32, 164, 163, 2039),
        ("sm_86", "RTX A6000", 84, 1536, 16, 100, 99, 768),
        ("sm_89", "L4", 58, 1536, 24, 100, 99, 300),
        ("sm_90", "H100 SXM5 80GB", 132, 2048, 32, 228, 227, 3350),
        ("sm_90a", "H100 SXM5 80GB", 132, 2048, 32, 228, 227, 3350),
        ("sm_100", "B200", 148, 2048, 32, 228, 227, 8000),
        ("sm_120", "GeForce RTX 5090", 170, 1536, 32, 100, 99, 1792)]:
    CHIPS[_name] = {
        "part": _part, "smCount": _sms, "maxThreadsPerSM": _threads,
        "maxBlocksPerSM": _blocks, "maxThreadsPerBlock": 1024,
        "registersPerSM": 65536, "maxRegistersPerThread": 255,
        "sharedMemPerSMKiB": _smem_sm, "sharedMemPerBlockKiB": _smem_block,
        "dramGBps": _gbps}

# Allocation rules of every chip from sm_80 to sm_120, as the CUDA Occupancy
# Calculator applies them: registers go to warps in units of 256, each warp
# within one of 4 sub-partitions of an SM (so a sub-partition's quarter of
# the registers holds whole warps); shared memory goes in units of 128
# bytes, plus 1 KiB the driver reserves per block.
WARP = 32
REG_UNIT = 256
SUB_PARTITIONS = 4
SMEM_UNIT = 128
SMEM_RESERVED = 1024

ELEMENT_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "f8E4M3FN": 1, "i8": 1,
                 "i32": 4, "i64": 8}


def number(x):
    """Two decimals, or three significant digits below 1."""
    return f"{x:.2f}" if x >= 1 else f"{x:.3g}"


def round_up(x, unit):
    return -(-x // unit) * unit


def occupancy(chip, threads, registers, static_smem, dynamic_smem):
    """Resident blocks per SM and the limit that sets it: the minimum over
    warps, blocks, registers and shared memory (0: the block cannot run)."""
    warps = -(-threads // WARP)
    limits = {}
    limits["threads"] = (chip["maxThreadsPerSM"] // WARP) // warps \
        if threads <= chip["maxThreadsPerBlock"] else 0
    limits["blocks"] = chip["maxBlocksPerSM"]
    regs_per_warp = round_up(registers * WARP, REG_UNIT)
    # The hardware checks a block's registers as if its warps were spread
    # evenly over the sub-partitions; the per-block limit is the SM's file.
    if registers > chip["maxRegistersPerThread"] or \
            regs_per_warp * round_up(warps, SUB_PARTITIONS) > chip["registersPerSM"]:
        limits["registers"] = 0
    elif regs_per_warp == 0:
        limits["registers"] = chip["maxBlocksPerSM"]
    else:
        per_sub = (chip["registersPerSM"] // SUB_PARTITIONS) // regs_per_warp
        limits["registers"] = per_sub * SUB_PARTITIONS // warps
    smem = round_up(static_smem + dynamic_smem + SMEM_RESERVED, SMEM_UNIT)
    # The largest shared-memory carveout: what the driver picks when a block
    # needs it; a smaller one only lowers this limit where it does not bind.
    if smem > chip["sharedMemPerBlockKiB"] * 1024 + SMEM_RESERVED:
        limits["shared"] = 0
    else:
        limits["shared"] = chip["sharedMemPerSMKiB"] * 1024 // smem \
            if smem else chip["maxBlocksPerSM"]
    blocks = min(limits.values())
    limiter = [k for k, v in limits.items() if v == blocks][0]
    return blocks, limiter, warps


PTXAS_FACTS = {}


def ptxas_facts(ptx, arch):
    """{kernel: {registers, stack, spill_stores, spill_loads, smem}} from
    `ptxas -v -arch=ARCH`, once per binary."""
    key = (ptx, arch)
    if key in PTXAS_FACTS:
        return PTXAS_FACTS[key]
    ptxas = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")
    run = subprocess.run([ptxas, "-v", f"-arch={arch}", ptx, "-o", os.devnull],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"static_report: ptxas failed on {ptx}:\n{run.stderr}")
    kernels, current = {}, None
    for line in run.stderr.splitlines():
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            current = kernels.setdefault(m.group(1), {
                "registers": 0, "stack": 0, "spill_stores": 0, "spill_loads": 0,
                "smem": 0})
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                      r"(\d+) bytes spill loads", line)
        if m:
            current.update(stack=int(m.group(1)), spill_stores=int(m.group(2)),
                           spill_loads=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            current["registers"] = int(m.group(1))
        m = re.search(r"(\d+) bytes smem", line)
        if m:
            current["smem"] = int(m.group(1))
    PTXAS_FACTS[key] = kernels
    return kernels


def parse_shapes(flags):
    """{input index: [dims]} from `--input-shape=I:AxB` strings."""
    shapes = {}
    for flag in flags:
        m = re.fullmatch(r"(?:--input-shape=)?(\d+):([0-9x]*)", flag.strip())
        if not m:
            sys.exit(f"static_report: bad input shape '{flag}' (expected I:AxB)")
        shapes[int(m.group(1))] = [int(d) for d in m.group(2).split("x") if d]
    return shapes


def evaluate(path, manifest, sm_count, given):
    """Buffer shapes and launch grids with every size bound, from
    eval_sizes.py's output: ({id: [dims]}, [[x, y, z], ...])."""
    inputs = sorted((b["index"], b) for b in manifest["buffers"] if b["role"] == "input")
    args = []
    for index, buffer in inputs:
        if index in given:
            dims = given[index]
        elif all(isinstance(d, int) for d in buffer["shape"]):
            dims = buffer["shape"]
        else:
            return None
        args.append("x".join(map(str, dims)))
    run = subprocess.run([sys.executable, EVAL_SIZES, path, str(sm_count)] + args,
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"static_report: {path}: {run.stderr.strip()}")
    shapes, grids = {}, []
    for line in run.stdout.splitlines():
        words = line.split(" ")
        if words[0] == "buffer":
            shapes[int(words[1])] = [int(d) for d in words[3].split("x") if d]
        elif words[0] == "launch":
            grids.append([int(g) for g in words[3].split("x")])
    return shapes, grids


def buffer_bytes(buffer, shape):
    n = ELEMENT_BYTES[buffer["type"]]
    for d in shape:
        n *= d
    return n


def report_manifest(path, args):
    manifest = json.load(open(path))
    chip_name = manifest["chip"]
    if chip_name not in CHIPS:
        return {"manifest": path, "skipped": f"no chip facts for {chip_name}"}
    chip = CHIPS[chip_name]
    entry = {"manifest": path, "function": manifest["function"], "chip": chip_name,
             "part": chip["part"], "sm_count": chip["smCount"],
             "dram_gbps": chip["dramGBps"]}
    binary = manifest["binary"]
    if manifest["launches"] and binary["format"] != "ptx":
        entry["skipped"] = ("binary is a cubin: ptxas -v reads PTX only "
                            "(compile with --emit=ptx)")
        return entry
    given = parse_shapes(args.input_shape)
    stem = os.path.join(os.path.dirname(path), f"{manifest['function']}.{chip_name}.shapes")
    if not given and os.path.exists(stem):
        given = parse_shapes(open(stem).read().split())
    bound = evaluate(path, manifest, chip["smCount"], given)
    if bound is None:
        entry["skipped"] = "dynamic input shapes: give --input-shape=I:AxB"
        return entry
    shapes, grids = bound
    entry["input_shapes"] = {b["index"]: shapes[b["id"]] for b in manifest["buffers"]
                             if b["role"] == "input"}
    buffers = {b["id"]: b for b in manifest["buffers"]}
    nbytes = {i: buffer_bytes(buffers[i], shapes[i]) for i in buffers}
    kernels = {}
    if manifest["launches"]:
        ptx = os.path.join(os.path.dirname(path), binary["path"])
        kernels = ptxas_facts(ptx, chip_name)
    gbps = chip["dramGBps"] * 1e9
    launches = []
    for launch, grid in zip(manifest["launches"], grids):
        facts = dict(kernels.get(launch["kernel"], {}))
        if not facts:
            sys.exit(f"static_report: {path}: ptxas reported no kernel {launch['kernel']}")
        if args.assume_registers is not None:
            facts["registers"] = args.assume_registers
        threads = launch["block"][0] * launch["block"][1] * launch["block"][2]
        dynamic = launch.get("shared_memory_bytes", 0)
        blocks, limiter, warps = occupancy(chip, threads, facts["registers"],
                                           facts["smem"], dynamic)
        grid_blocks = grid[0] * grid[1] * grid[2]
        ids = sorted({p["buffer"] for p in launch["params"] if "buffer" in p})
        moved = sum(nbytes[i] for i in ids)
        launches.append({
            "kernel": launch["kernel"], "threads": threads, "grid": grid,
            "registers": facts["registers"], "stack": facts["stack"],
            "spill_stores": facts["spill_stores"], "spill_loads": facts["spill_loads"],
            "static_shared": facts["smem"], "dynamic_shared": dynamic,
            "blocks_per_sm": blocks, "limited_by": limiter,
            "occupancy_pct": 100.0 * blocks * warps * WARP / chip["maxThreadsPerSM"],
            "waves": grid_blocks / (chip["smCount"] * blocks) if blocks else None,
            "bytes": moved, "floor_us": moved / gbps * 1e6})
    entry["launches"] = launches
    minimum = sum(nbytes[i] for i, b in buffers.items() if b["role"] in ("input", "output"))
    entry["minimum_bytes"] = minimum
    entry["launch_bytes"] = sum(l["bytes"] for l in launches)
    entry["floor_us"] = minimum / gbps * 1e6
    entry["launch_floor_us"] = entry["launch_bytes"] / gbps * 1e6
    return entry


def markdown(entry):
    title = f"### {entry.get('function', entry['manifest'])}"
    if "chip" in entry:
        title += (f" ({entry['chip']}, {entry['part']}: {entry['sm_count']} SMs, "
                  f"{entry['dram_gbps']} GB/s), ESTIMATE")
    lines = [title, ""]
    if "skipped" in entry:
        return "\n".join(lines + [f"skipped: {entry['skipped']}", ""])
    shapes = ", ".join(f"{i}: {'x'.join(map(str, s)) or 'scalar'}"
                       for i, s in sorted(entry["input_shapes"].items()))
    lines += [f"inputs {shapes}", "",
              "| kernel | threads | grid | registers | spills (B st/ld) | shared B "
              "(static+dynamic) | blocks/SM (limit) | occupancy | waves | bytes | "
              "floor us |",
              "| --- | ---: | --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for l in entry["launches"]:
        waves = number(l["waves"]) if l["waves"] is not None else "-"
        lines.append(
            f"| {l['kernel']} | {l['threads']} | {'x'.join(map(str, l['grid']))} | "
            f"{l['registers']} | {l['spill_stores']}/{l['spill_loads']} | "
            f"{l['static_shared']}+{l['dynamic_shared']} | "
            f"{l['blocks_per_sm']} ({l['limited_by']}) | {l['occupancy_pct']:.1f}% | "
            f"{waves} | {l['bytes']} | {number(l['floor_us'])} |")
    ratio = entry["launch_bytes"] / entry["minimum_bytes"] if entry["minimum_bytes"] else 0
    lines += ["", f"bytes: launches {entry['launch_bytes']}, minimum {entry['minimum_bytes']} "
              f"(inputs read once + outputs written once), ratio {ratio:.2f}; "
              f"bandwidth floor {number(entry['floor_us'])} us "
              f"(launches' bytes: {number(entry['launch_floor_us'])} us)", ""]
    return "\n".join(lines)


def manifests(paths):
    found = []
    for path in paths:
        if os.path.isdir(path):
            for folder, _, files in os.walk(path):
                found += [os.path.join(folder, f) for f in files if f.endswith(".json")]
        else:
            found.append(path)
    result = []
    for path in sorted(found):
        try:
            m = json.load(open(path))
        except (OSError, ValueError):
            continue
        if isinstance(m, dict) and "format_version" in m and "launches" in m:
            result.append(path)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON list instead of Markdown")
    parser.add_argument("--input-shape", action="append", default=[], metavar="I:AxB",
                        help="shape of input I of a dynamic manifest")
    parser.add_argument("--assume-registers", type=int, metavar="N",
                        help="N registers per thread instead of ptxas's count "
                             "(to check the occupancy model on fixed numbers)")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    found = manifests(args.paths)
    if not found:
        sys.exit("static_report: no manifest found")
    entries = [report_manifest(p, args) for p in found]
    if args.json:
        json.dump(entries, sys.stdout, indent=1)
        print()
        return
    print("Static report: ESTIMATES from ptxas -v and the chip table, no GPU ran.\n")
    for entry in entries:
        print(markdown(entry))


if __name__ == "__main__":
    main()
