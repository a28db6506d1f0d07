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
                        [--assume-registers=N] [--no-sass]
                        [--budget=FILE.md] PATH...
PATH: a manifest, or a folder searched for manifests. Sizes are evaluated
by test/Tools/Inputs/eval_sizes.py with the chip's SM count; a manifest
with dynamic inputs takes --input-shape, else NAME.CHIP.shapes next to it
(bench/gpu/make-artifacts.sh writes them), else it is skipped with a note.
A cubin cannot be read back (ptxas -v needs PTX): compile with --emit=ptx.
ptxas comes from $CUDA_HOME/bin (default /usr/local/cuda).

SASS (per kernel, a second table; "sass" in --json): the cubin ptxas
writes for the chip, disassembled by nvdisasm ($NVDISASM, else the copy
scripts/get-nvdisasm.sh fetches, else PATH; --no-sass skips it). Counts are
of instructions in the code, not executed ones (ESTIMATE from static SASS):
  instructions: from the kernel's first instruction to its last one before
    the padding (trailing NOPs and the BRA to itself before them), 16 bytes
    each, instructions nvdisasm cannot decode (`undecoded`) included;
  classes: global loads (LDG, LDGSTS), shared (LDS, LDSM, STS), MMA (HMMA,
    IMMA, DMMA, *GMMA), FP32 (FFMA, FMUL, FADD), conversions (F2F, F2I, I2F,
    FRND, F2FP, I2FP), SHFL, integer (INT_OPS below, uniform ones too);
  loop: a loop is the address range from a backward BRA's target to the
    last BRA back to that target; the innermost ones contain no other. The
    reported one is the innermost loop with the most global-load bytes per
    iteration (ties: the longer one). Its `instructions` are those in the
    range (each executed once per iteration when no branch skips any);
    `bytes per warp iteration` = 32 lanes x the sum of its LDG widths (LDG.E
    4 B, .64 8, .128 16, .U8/.S8 1, .U16/.S16 2; LDGSTS alike), predicated
    loads counted as taken; and
      instructions per 16 B = instructions / (bytes per warp iteration / 16 / 32),
    i.e. the instructions a lane issues per 16 bytes it loads in the loop
    (a loop of 20 instructions with one LDG.E.128: 20). Every global load
    counts: it is per 16 B of keys only where the keys are all the loop
    loads (a score loop that re-reads its query tile counts those too).
    Hence also `instructions per 16 B of stream`, the same ratio over the
    loop's main stream only: the loads through the one base register
    that the most bytes come through (in a score loop, the keys: a pointer
    that walks the key rows, where query fragments, scales and weights
    come through others).

--budget=FILE.md: instead of the report, check every kernel of the
manifests against the budget table marked in FILE.md (between the lines
`<!-- static-budget:begin -->` and `<!-- static-budget:end -->`;
docs/performance.md holds the one the tests read). A row per kernel and
chip: `kernel | role | chip | ...`, then the budget columns `max
registers`, `min occupancy` (in %), `max stack/spill stores/spill loads`
(bytes, `S/ST/LD`), `max instr./16 B` (the innermost loop's
instructions per 16 B of its main stream, see SASS; `-`: none) and `max
SASS instr.` (the kernel's instructions, all of them: what runs outside
the innermost loop too, such as a score's key decoding around its
head-tile loop; `-`: none); the other columns are documentation. Prints each kernel against its row and exits
1 when any kernel of a chip the table names is over a budget, has no row,
or a row names a kernel that is not there; each such line says the
kernel, the chip and the limit. Spills are debt: a row that allows more
than ptxas reports fails too (lower it). Where the table's own columns
`registers`, `occupancy` and `stack/spill stores/spill loads` (today's
values) differ from the measured ones, a note says so (no failure). The
SASS columns are checked only with SASS (nvdisasm up to sm_90): a row with
a number there fails when there is no SASS for it, unless --no-sass (then
only registers, occupancy and spills are checked, which need ptxas alone).

nvdisasm 11.8 (Debian's) reads the ELF header of CUDA 11/12: for CUDA 13's
cubins a copy's header is rewritten to the old layout (same code), which it
can only decode up to sm_90; newer chips get a note instead of SASS.
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

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
CUBINS = {}
SCRATCH = None


def scratch_dir():
    global SCRATCH
    if SCRATCH is None:
        SCRATCH = tempfile.TemporaryDirectory(prefix="static_report.")
    return SCRATCH.name


def ptxas_facts(ptx, arch, keep_cubin=False):
    """{kernel: {registers, stack, spill_stores, spill_loads, smem}} from
    `ptxas -v -arch=ARCH`, once per binary; with keep_cubin the cubin goes
    to a scratch folder (CUBINS[(ptx, arch)]) for the SASS."""
    key = (ptx, arch)
    if key in PTXAS_FACTS and (not keep_cubin or key in CUBINS):
        return PTXAS_FACTS[key]
    ptxas = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")
    out = os.devnull
    if keep_cubin:
        out = os.path.join(scratch_dir(), f"{len(CUBINS)}.{arch}.cubin")
        CUBINS[key] = out
    run = subprocess.run([ptxas, "-v", f"-arch={arch}", ptx, "-o", out],
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


# --- SASS -------------------------------------------------------------------

SASS_CLASSES = {
    "ldg": {"LDG", "LDGSTS"},
    "shared": {"LDS", "LDSM", "STS"},
    "mma": {"HMMA", "IMMA", "DMMA", "HGMMA", "IGMMA", "QGMMA", "BGMMA"},
    "fp32": {"FFMA", "FMUL", "FADD"},
    "cvt": {"F2F", "F2I", "I2F", "FRND", "F2FP", "I2FP"},
    "shfl": {"SHFL"},
}
# Integer arithmetic, logic, shifts and compares; U-prefixed forms (the
# uniform datapath) count alike.
INT_OPS = {"IMAD", "IMUL", "IADD", "IADD3", "IADD32I", "LEA", "LOP", "LOP3", "SHF",
           "SHL", "SHR", "ISETP", "IMNMX", "VIMNMX", "IABS", "POPC", "FLO", "BREV",
           "BMSK", "SGXT", "IDP"}
# Bytes per lane of a global load, by its width modifier (none: 32 bits).
LOAD_WIDTH = {"128": 16, "64": 8, "U8": 1, "S8": 1, "U16": 2, "S16": 2}
INSTRUCTION_BYTES = 16  # every SASS instruction from sm_70 on
NVDISASM_LAST_SM = 90   # the newest chip nvdisasm 11.x (and 12.x < 12.8) decodes


def nvdisasm_cache_dir():
    """Where scripts/get-nvdisasm.sh puts nvdisasm (same defaults)."""
    return os.environ.get("INDEXPOOL_NVDISASM_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "indexpool", "nvdisasm-11.8")


def find_nvdisasm():
    """(path, None) or (None, why): $NVDISASM, else get-nvdisasm.sh's copy,
    else the first on PATH (test/lit.cfg.py's feature nvdisasm asks here)."""
    given = os.environ.get("NVDISASM")
    if given:
        if os.access(given, os.X_OK):
            return given, None
        return None, f"NVDISASM={given} is not an executable"
    cached = os.path.join(nvdisasm_cache_dir(), "nvdisasm")
    if os.access(cached, os.X_OK):
        return cached, None
    found = shutil.which("nvdisasm")
    if found:
        return found, None
    return None, "no nvdisasm (scripts/get-nvdisasm.sh fetches it; or set NVDISASM)"


def nvdisasm_version(nvdisasm):
    """'11.8' from `nvdisasm --version`, or None."""
    run = subprocess.run([nvdisasm, "--version"], capture_output=True, text=True)
    m = re.search(r"release (\d+)\.(\d+)", run.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else None


def old_elf_header(cubin):
    """A copy of a CUDA 13 cubin with the ELF header of CUDA 11/12, or None
    when it already has it. CUDA 13: EI_OSABI 0x41, ABI version 8, e_flags
    with the SM number in bits 8..15; before: 0x33, 7, and e_flags
    sm | 0x500 | sm << 16 (EF_CUDA_64BIT_ADDRESS | EF_CUDA_TEXMODE_UNIFIED
    and the virtual SM), as nvdisasm 11.8 prints them back."""
    data = bytearray(cubin)
    if data[:4] != b"\x7fELF" or data[7] != 0x41:
        return None
    sm = (struct.unpack_from("<I", data, 0x30)[0] >> 8) & 0xFF
    data[7], data[8] = 0x33, 7
    struct.pack_into("<I", data, 0x30, sm | 0x500 | sm << 16)
    return bytes(data)


def disassemble(nvdisasm, version, cubin, chip):
    """(nvdisasm's text, None) or (None, why)."""
    sm = int(re.match(r"sm_(\d+)", chip).group(1))
    ver = ".".join(map(str, version)) if version else "?"
    if version and version < (12, 8) and sm > NVDISASM_LAST_SM:
        return None, f"no SASS (nvdisasm {ver} knows up to sm_{NVDISASM_LAST_SM})"
    run = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True)
    if run.returncode != 0:
        patched = old_elf_header(open(cubin, "rb").read())
        if patched is not None:
            copy = cubin + ".old-header.cubin"
            with open(copy, "wb") as f:
                f.write(patched)
            run = subprocess.run([nvdisasm, "-c", copy], capture_output=True, text=True)
    if run.returncode != 0:
        why = (run.stderr.strip().splitlines() or ["no message"])[-1]
        return None, f"no SASS (nvdisasm {ver} failed on {chip}: {why})"
    return run.stdout, None


def parse_sass(text):
    """{kernel: [(address, predicate, opcode, operands), ...]} and each
    label's address, from `nvdisasm -c`."""
    kernels, labels, current, pending = {}, {}, None, []
    for line in text.splitlines():
        m = re.match(r"\s*\.text\.(\S+):\s*$", line)
        if m:
            current = kernels.setdefault(m.group(1), [])
            pending = []
            continue
        m = re.match(r"\s*(\.L_x_\d+):", line)
        if m:
            pending.append(m.group(1))
            continue
        m = re.match(r"\s*/\*([0-9a-f]+)\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);", line)
        if m and current is not None:
            address = int(m.group(1), 16)
            for label in pending:
                labels[label] = address
            pending = []
            current.append((address, (m.group(2) or "").strip(), m.group(3),
                            m.group(4).strip()))
    return kernels, labels


def load_width(opcode):
    for word in opcode.split(".")[1:]:
        if word in LOAD_WIDTH:
            return LOAD_WIDTH[word]
    return 4


def opclass(base):
    for name, ops in SASS_CLASSES.items():
        if base in ops:
            return name
    if base in INT_OPS or (base.startswith("U") and base[1:] in INT_OPS):
        return "int"
    return None


def sass_facts(code, labels):
    """The counts of one kernel (see the module's docstring)."""
    def target(operands):
        m = re.search(r"`\((\.L_x_\d+)\)", operands)
        return labels.get(m.group(1)) if m else None
    code = list(code)
    # Padding: NOPs to the section's alignment after a BRA to itself.
    while code and code[-1][2] == "NOP":
        code.pop()
    if code and code[-1][2].split(".")[0] == "BRA" and target(code[-1][3]) == code[-1][0]:
        code.pop()
    if not code:
        return None
    first, last = code[0][0], code[-1][0]
    total = (last - first) // INSTRUCTION_BYTES + 1
    classes = {name: 0 for name in list(SASS_CLASSES) + ["int"]}
    opcodes = {}
    for _, _, opcode, _ in code:
        base = opcode.split(".")[0]
        opcodes[base] = opcodes.get(base, 0) + 1
        name = opclass(base)
        if name:
            classes[name] += 1
    # Loops: from a backward branch's target to the last branch back to it.
    ends = {}
    for address, _, opcode, operands in code:
        to = target(operands) if opcode.split(".")[0] == "BRA" else None
        if to is not None and to < address:
            ends[to] = max(ends.get(to, to), address)
    loops = sorted(ends.items())
    innermost = [(a, b) for a, b in loops
                 if not any((c, d) != (a, b) and a <= c and d <= b for c, d in loops)]
    best = None
    for start, end in innermost:
        body = (end - start) // INSTRUCTION_BYTES + 1
        lane_bytes, streams = 0, {}
        for address, _, op, operands in code:
            if start <= address <= end and op.split(".")[0] in SASS_CLASSES["ldg"]:
                lane_bytes += load_width(op)
                # The global address: LDGSTS's second operand, LDG's only one.
                base = (re.findall(r"\[(U?R\w+)", operands) or ["?"])[-1]
                streams[base] = streams.get(base, 0) + load_width(op)
        if best is None or (lane_bytes, body) > (best["lane_bytes"], best["instructions"]):
            best = {"start": start, "end": end, "instructions": body, "lane_bytes": lane_bytes,
                    "stream_bytes": max(streams.values(), default=0)}
    loop = None
    if best:
        warp_bytes = best["lane_bytes"] * WARP
        stream_bytes = best["stream_bytes"] * WARP
        loop = {"start": f"{best['start']:#x}", "end": f"{best['end']:#x}",
                "instructions": best["instructions"],
                "bytes_per_warp_iteration": warp_bytes,
                "instructions_per_16B": (best["instructions"] / (warp_bytes / 16 / WARP)
                                         if warp_bytes else None),
                "stream_bytes_per_warp_iteration": stream_bytes,
                "instructions_per_16B_of_stream": (
                    best["instructions"] / (stream_bytes / 16 / WARP) if stream_bytes else None)}
    return {"instructions": total, "undecoded": total - len(code), "classes": classes,
            "opcodes": dict(sorted(opcodes.items())), "loops": len(loops),
            "innermost_loop": loop}


SASS_CACHE = {}


def sass_of(cubin, chip):
    """({kernel: facts}, None) or (None, why), once per cubin."""
    if cubin in SASS_CACHE:
        return SASS_CACHE[cubin]
    nvdisasm, why = find_nvdisasm()
    result = (None, f"no SASS: {why}")
    if nvdisasm:
        text, why = disassemble(nvdisasm, nvdisasm_version(nvdisasm), cubin, chip)
        if text is None:
            result = (None, why)
        else:
            kernels, labels = parse_sass(text)
            result = ({k: sass_facts(c, labels) for k, c in kernels.items()}, None)
    SASS_CACHE[cubin] = result
    return result


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
    kernels, sass = {}, None
    if manifest["launches"]:
        ptx = os.path.join(os.path.dirname(path), binary["path"])
        kernels = ptxas_facts(ptx, chip_name, keep_cubin=args.sass)
        if args.sass:
            sass, note = sass_of(CUBINS[(ptx, chip_name)], chip_name)
            if note:
                entry["sass_note"] = note
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
        if sass is not None:
            launches[-1]["sass"] = sass.get(launch["kernel"])
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
    if "sass_note" in entry:
        lines += [entry["sass_note"], ""]
    elif any("sass" in l for l in entry["launches"]):
        lines += sass_markdown(entry["launches"])
    return "\n".join(lines)


def sass_markdown(launches):
    lines = ["SASS per kernel, ESTIMATE from static code (instructions in the code, "
             "not executed; loop: the innermost one with the most global-load bytes):", "",
             "| kernel | SASS instructions (undecoded) | LDG | LDS+STS | MMA | "
             "FFMA/FMUL/FADD | cvt | SHFL | int | loop instructions | "
             "loop B/warp iteration | loop instructions/16 B |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    seen = set()
    for l in launches:
        if l["kernel"] in seen:
            continue
        seen.add(l["kernel"])
        s = l.get("sass")
        if s is None:
            lines.append(f"| {l['kernel']} | not in the SASS |" + " |" * 10)
            continue
        c, loop = s["classes"], s["innermost_loop"]
        if loop is None:
            looped = "no loop | - | -"
        else:
            ratio = loop["instructions_per_16B"]
            looped = (f"{loop['instructions']} | {loop['bytes_per_warp_iteration']} | "
                      f"{number(ratio) if ratio is not None else '-'}")
        lines.append(
            f"| {l['kernel']} | {s['instructions']} ({s['undecoded']}) | {c['ldg']} | "
            f"{c['shared']} | {c['mma']} | {c['fp32']} | {c['cvt']} | {c['shfl']} | "
            f"{c['int']} | {looped} |")
    return lines + [""]


# --- budget -----------------------------------------------------------------

BUDGET_BEGIN = "<!-- static-budget:begin -->"
BUDGET_END = "<!-- static-budget:end -->"
# Header cells of the budget columns (the table's other columns document).
BUDGET_COLUMNS = {"kernel": "kernel", "chip": "chip",
                  "max registers": "registers", "min occupancy": "occupancy",
                  "max stack/spill stores/spill loads": "local",
                  "max instr./16 B": "instructions",
                  "max SASS instr.": "kernel_instructions"}


# Columns of today's values (documentation; a difference gets a note).
TODAY_COLUMNS = ("registers", "occupancy", "stack/spill stores/spill loads")


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def read_budget(path):
    """{(kernel, chip): {registers, occupancy, local: (S, ST, LD),
    instructions: float or None, line}} from the marked table of PATH."""
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        sys.exit(f"static_report: --budget: {e}")
    if BUDGET_BEGIN not in lines or BUDGET_END not in lines:
        sys.exit(f"static_report: {path}: no budget table (between the lines "
                 f"'{BUDGET_BEGIN}' and '{BUDGET_END}')")
    begin = lines.index(BUDGET_BEGIN)
    table = [(begin + 2 + i, l) for i, l in
             enumerate(lines[begin + 1:lines.index(BUDGET_END)]) if l.startswith("|")]
    if len(table) < 2:
        sys.exit(f"static_report: {path}:{begin + 1}: the budget table is empty")
    header = cells(table[0][1])
    where = {}
    for cell, key in BUDGET_COLUMNS.items():
        if cell not in header:
            sys.exit(f"static_report: {path}:{table[0][0]}: the budget table has no "
                     f"column '{cell}' (columns: {', '.join(header)})")
        where[key] = header.index(cell)
    budget = {}
    for number_, line in table[2:]:
        row = cells(line)
        at = f"{path}:{number_}"
        if len(row) != len(header):
            sys.exit(f"static_report: {at}: {len(row)} cells, the header has {len(header)}")
        try:
            local = tuple(int(x) for x in row[where["local"]].split("/"))
            if len(local) != 3:
                raise ValueError
            entry = {"registers": int(row[where["registers"]]),
                     "occupancy": float(row[where["occupancy"]].rstrip("%")),
                     "local": local,
                     "instructions": (None if row[where["instructions"]] == "-"
                                      else float(row[where["instructions"]])),
                     "kernel_instructions": (
                         None if row[where["kernel_instructions"]] == "-"
                         else int(row[where["kernel_instructions"]])),
                     "line": at}
        except ValueError:
            sys.exit(f"static_report: {at}: a budget cell is not a number (registers: "
                     f"N, occupancy: N%, stack/spill stores/spill loads: S/ST/LD, "
                     f"instr./16 B: N or -, SASS instr.: N or -): {line.strip()}")
        entry["today"] = {name: row[header.index(name)] for name in TODAY_COLUMNS
                          if name in header}
        key = (row[where["kernel"]].strip("`"), row[where["chip"]])
        if key in budget:
            sys.exit(f"static_report: {at}: a second row for {key[0]} on {key[1]}")
        budget[key] = entry
    return budget


def sass_budget_shown(limit, sass_wanted, entry, over, what):
    """The cell of a budget that needs SASS when there is none (appending
    to `over` where that fails the row), or None: check it."""
    if not sass_wanted:
        return f"not checked (--no-sass) ({limit:g})"
    if entry.get("sass_note"):
        over.append(f"no SASS to check the {what} against {limit:g}: "
                    f"{entry['sass_note']} (--no-sass checks the rest)")
        return f"no SASS ({limit:g})"
    return None


def check_budget(entries, budget, path, sass_wanted):
    """Prints every kernel against its budget row; returns the number of
    failures (each printed as a line starting 'OVER BUDGET:')."""
    print(f"Static budget: ESTIMATES from ptxas -v{', nvdisasm' if sass_wanted else ''} "
          f"and the chip table, no GPU ran; budgets from {path}.\n")
    print("| kernel | chip | registers (max) | occupancy (min) | stack/spill st/ld (max) | "
          "loop instr./16 B of stream (max) | SASS instr. (max) | verdict |")
    print("| --- | --- | ---: | ---: | --- | ---: | ---: | --- |")
    failures, notes, seen, chips = [], [], set(), set()
    for entry in entries:
        if "skipped" in entry:
            failures.append(f"{entry['manifest']}: not checked: {entry['skipped']}")
            continue
        chip = entry["chip"]
        chips.add(chip)
        for l in entry["launches"]:
            key = (l["kernel"], chip)
            if key in seen:
                continue
            seen.add(key)
            row = budget.get(key)
            if row is None:
                failures.append(f"{l['kernel']} on {chip}: no budget row (add one to {path})")
                print(f"| {l['kernel']} | {chip} | {l['registers']} | "
                      f"{l['occupancy_pct']:.1f}% | - | - | - | no budget row |")
                continue
            over = []
            if l["registers"] > row["registers"]:
                over.append(f"registers {l['registers']} > {row['registers']}")
            if l["occupancy_pct"] < row["occupancy"] - 1e-9:
                over.append(f"occupancy {l['occupancy_pct']:.1f}% < {row['occupancy']:g}% "
                            f"({l['blocks_per_sm']} blocks/SM, limited by {l['limited_by']})")
            local = (l["stack"], l["spill_stores"], l["spill_loads"])
            if any(a > b for a, b in zip(local, row["local"])):
                over.append("stack/spill stores/spill loads {} B > {} B".format(
                    "/".join(map(str, local)), "/".join(map(str, row["local"]))))
            elif local != row["local"]:
                # A spill allowance is debt: it only goes down (as
                # test/gpu-kernel-gate.baseline's lines).
                over.append("stack/spill stores/spill loads {} B, less than the row's "
                            "{} B: lower the row".format(
                                "/".join(map(str, local)), "/".join(map(str, row["local"]))))
            ratio, shown, total_shown = None, "-", "-"
            if row["kernel_instructions"] is not None:
                total_shown = sass_budget_shown(row["kernel_instructions"], sass_wanted, entry,
                                                over, "kernel instructions")
                if total_shown is None:
                    total = l["sass"]["instructions"]
                    total_shown = f"{total} ({row['kernel_instructions']})"
                    if total > row["kernel_instructions"]:
                        over.append(f"SASS instructions {total} > {row['kernel_instructions']}")
            if row["instructions"] is not None:
                shown = sass_budget_shown(row["instructions"], sass_wanted, entry, over,
                                          "instr./16 B of the loop")
                if shown is None:
                    loop = (l.get("sass") or {}).get("innermost_loop") or {}
                    ratio = loop.get("instructions_per_16B_of_stream")
                    if ratio is None:
                        over.append("no loop with global loads in the SASS, the budget "
                                    f"has {row['instructions']:g} instr./16 B")
                        shown = f"no loop ({row['instructions']:g})"
                    else:
                        shown = f"{number(ratio)} ({row['instructions']:g})"
                        if ratio > row["instructions"] + 1e-9:
                            over.append(f"loop instructions per 16 B of stream "
                                        f"{number(ratio)} > {row['instructions']:g} "
                                        f"({loop['instructions']} instructions, "
                                        f"{loop['stream_bytes_per_warp_iteration']} B of stream "
                                        f"per warp iteration)")
            print(f"| {l['kernel']} | {chip} | {l['registers']} ({row['registers']}) | "
                  f"{l['occupancy_pct']:.1f}% ({row['occupancy']:g}%) | "
                  f"{'/'.join(map(str, local))} ({'/'.join(map(str, row['local']))}) | "
                  f"{shown} | {total_shown} | {'OVER: ' + '; '.join(over) if over else 'ok'} |")
            failures += [f"{l['kernel']} on {chip}: {why} ({row['line']})" for why in over]
            measured = {"registers": str(l["registers"]),
                        "occupancy": f"{l['occupancy_pct']:g}%",
                        "stack/spill stores/spill loads": "/".join(map(str, local))}
            notes += [f"{l['kernel']} on {chip}: {name} {measured[name]}, the table says "
                      f"{said} ({row['line']})"
                      for name, said in row["today"].items() if said != measured[name]]
    for (kernel, chip), row in sorted(budget.items()):
        if chip in chips and (kernel, chip) not in seen:
            failures.append(f"{kernel} on {chip}: a budget row ({row['line']}) for a kernel "
                            f"the manifests of {chip} do not launch")
    print()
    for line in notes:
        print(f"note: {line}")
    for line in failures:
        print(f"OVER BUDGET: {line}")
    if not failures:
        print(f"within budget: {len(seen)} kernels on {', '.join(sorted(chips))}")
    return len(failures)


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
    parser.add_argument("--no-sass", dest="sass", action="store_false",
                        help="no SASS columns (no nvdisasm run)")
    parser.add_argument("--budget", metavar="FILE.md",
                        help="check every kernel against the budget table in FILE.md "
                             "(exit 1 when one is over)")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    budget = read_budget(args.budget) if args.budget else None
    found = manifests(args.paths)
    if not found:
        sys.exit("static_report: no manifest found")
    entries = [report_manifest(p, args) for p in found]
    if budget is not None:
        sys.exit(1 if check_budget(entries, budget, args.budget, args.sass) else 0)
    if args.json:
        json.dump(entries, sys.stdout, indent=1)
        print()
        return
    sources = "ptxas -v, nvdisasm's SASS" if args.sass else "ptxas -v"
    print(f"Static report: ESTIMATES from {sources} and the chip table, no GPU ran.\n")
    for entry in entries:
        print(markdown(entry))


if __name__ == "__main__":
    main()
