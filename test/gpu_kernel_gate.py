#!/usr/bin/env python3
"""The static GPU kernel gate (issue 38): no kernel of a public function has a
stack frame, spills or local-memory traffic on any chip, by ptxas's own report
(ptxas -v) and by the PTX itself (.local depots, ld.local / st.local, dynamic
alloca: ptxas promotes some depots and never counts a dynamic alloca).

usage: gpu_kernel_gate.py --tools BUILD/bin [--source ROOT] [--baseline FILE]
           [--cache DIR] [--jobs N] [--chip CHIP]... [--ptxas PATH]
           [--ptxas-arg ARG]... [--write-baseline] [FILE.mlir ...]

Files: ROOT/examples/*.mlir, ROOT/bench/gpu/*.mlir and
ROOT/test/Integration/**/*.mlir unless given. Chips: indexpool-compile's own
table (what it prints for an unknown chip); --chip keeps some of them.

For each file and chip, `indexpool-compile --emit=ptx --keep-going` compiles
every public function and reports each failure with its function (a file
that fails before any function is compiled one function at a time). A
function refused for a
documented reason is not a failure: where the refusal is the host code around
its kernels (the manifest refusals), the kernels are checked through
`indexpool-opt --indexpool-fuse --indexpool-to-nvvm` instead ("not checked"
in the summary when that fails too); a shape or launch configuration with no
kernel for the chip leaves nothing to check. Any other compile or ptxas error
is an offender (cause F).

Every offender fails the gate (NEW). A --baseline FILE lists offenders as
debt a reviewer agreed to (the ctest test has none: issue 38 cleared the
last of them): the gate then fails on an offender it does not list (NEW),
one worse than its line (WORSE: more stack, spill or local-memory bytes or
accesses) and a line of a checked file and chip that no longer offends
(STALE): the list only shrinks. --write-baseline rewrites FILE from this
run, keeping the lines of files and chips it did not check.

Exit: 0 pass, 1 NEW, WORSE or STALE, 2 a usage or tool error, 77 no ptxas
(ctest's SKIP_RETURN_CODE). Python 3 standard library only.
"""
import argparse
import dataclasses
import errno
import glob
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

# indexpool-compile's documented refusals (KernelManifest.cpp, API/Module.cpp).
# These refuse the host code around the kernels, not the kernels: check them
# through indexpool-opt.
HOST_REFUSALS = ("a manifest describes functions made of indexpool ops only",
                 "not expressible in a manifest", "not a kernel launch",
                 "the API passes ranked tensors")
# These leave no kernel for the chip (IndexPoolToGPUKernels.cpp): a paged op
# with dynamic sizes runs on the CPU only; an #indexpool.launch names the
# chip it was chosen for; a dynamic D would need a per-thread scratch row in
# local memory (IndexPoolToLoops' static-scratch).
NO_KERNEL_REFUSALS = ("has no GPU kernel for these shapes", "was chosen for",
                      "a GPU kernel needs a static D")

# What makes a kernel an offender, as compared with its baseline line.
COUNTS = ("stack", "spill_stores", "spill_loads", "depot", "ld_local", "st_local", "alloca")
LOCAL = {"depot": "depot", "ld_local": "ld", "st_local": "st", "alloca": "alloca"}
CAUSES = {
    "R": "register cap: ptxas caps the registers for the resident blocks it aims at "
         "and spills",
    "H": "a static .local depot (a scratch row or array in local memory)",
    "A": "a dynamic alloca",
    "F": "a compile or ptxas failure",
}

FUNC = re.compile(r"^\s*func\.func\s+(?:(private|public|nested)\s+)?@([\w$.]+)", re.M)
ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)",
                   re.M)
DEPOT = re.compile(r"\.local\s+\.align\s+\d+\s+\.b8\s+\S+\[(\d+)\]")
ASSEMBLY = re.compile(r'assembly = "([^"]*)"')
FUNCTION_ERROR = re.compile(r"^error: @([\w$.]+): (.*)$")
ERROR_KERNEL = re.compile(r"in function (\w+)|[Ee]ntry function '(\w+)'")


@dataclasses.dataclass
class Kernel:
    """One kernel of one function on one chip, or the compile failure in its place."""
    file: str
    function: str
    chip: str
    kernel: str
    numbers: dict
    error: str = ""

    @property
    def key(self):
        return (self.file, self.function, self.chip, self.kernel)

    def offends(self):
        return bool(self.error) or any(self.numbers.get(k, 0) for k in COUNTS)

    def cause(self):
        n = self.numbers
        return ("F" if self.error else "A" if n.get("alloca") else
                "H" if n.get("depot") else "R")

    def numbers_text(self, full=True):
        """stack=N spill_stores=N spill_loads=N registers=N [local=...], or for
        a baseline line (not full) the nonzero counts only."""
        n = self.numbers
        fields = [f"{k}={n.get(k, 0)}" for k in ("stack", "spill_stores", "spill_loads")
                  if full or n.get(k)]
        fields += [f"registers={n.get('registers', '?')}"] if full else []
        local = ",".join(f"{short}:{n[k]}" for k, short in LOCAL.items() if n.get(k))
        return " ".join(fields + ([f"local={local}"] if local else []))

    def describe(self):
        what = f"compile failed: {self.error}" if self.error else self.numbers_text()
        return f"{' '.join(self.key)} {what}"


def sort_key(key):
    """(file, function, chip, kernel) with the chips in number order."""
    file, function, chip, kernel = key
    return file, function, int(re.sub(r"\D", "", chip) or 0), chip, kernel


def fail(message):
    """A usage or tool error: exit 2, apart from a gate failure's 1."""
    print(f"gpu_kernel_gate: {message}", file=sys.stderr)
    sys.exit(2)


def first_error(text):
    lines = [l.strip() for l in text.splitlines() if "error" in l] or text.strip().splitlines()
    return lines[0] if lines else "failed without a message"


def function_errors(stderr):
    """{function: its first error} from --keep-going's report: each failed
    function's diagnostics, then its line "error: @NAME: MESSAGE"."""
    errors, block = {}, []
    for line in stderr.splitlines():
        block.append(line)
        m = FUNCTION_ERROR.match(line)
        if m:
            errors[m[1]] = first_error("\n".join(block[:-1] + [m[2]]))
            block = []
    return errors


def public_functions(text):
    return list(dict.fromkeys(m[2] for m in FUNC.finditer(text) if m[1] in (None, "public")))


def function_module(text, fn):
    """The file without its other public functions, for indexpool-opt to compile fn
    alone: top-level ops start at column 0 (the files are printed that way), a
    line that is indented, a comment or '}' continues the one above."""
    items = []
    for line in text.splitlines():
        if line and line[0] not in " \t}/":
            items.append([])
        if items:
            items[-1].append(line)
    kept = []
    for item in items:
        m = FUNC.match(item[0])
        if not (m and m[1] in (None, "public") and m[2] != fn):
            kept += item
    return "\n".join(kept) + "\n"


def parse_ptxas(report):
    """{kernel: {stack, spill_stores, spill_loads, registers}} from ptxas -v."""
    kernels, current = {}, None
    for line in report.splitlines():
        if m := re.search(r"Function properties for (\S+)", line):
            current = kernels.setdefault(m[1], {})
        elif current is None:
            continue
        elif m := re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                            r"(\d+) bytes spill loads", line):
            current.update(stack=int(m[1]), spill_stores=int(m[2]), spill_loads=int(m[3]))
        elif m := re.search(r"Used (\d+) registers", line):
            current["registers"] = int(m[1])
    return kernels


def ptx_local(ptx):
    """{kernel: {depot, ld_local, st_local, alloca}} from each .entry's body."""
    starts = list(ENTRY.finditer(ptx)) + [None]
    out = {}
    for m, end in zip(starts, starts[1:]):
        if m[1] != "entry":
            continue
        body = ptx[m.start():end.start() if end else len(ptx)]
        out[m[2]] = {
            "depot": sum(int(n) for n in DEPOT.findall(body)),
            "ld_local": len(re.findall(r"\bld\.local\b", body)),
            "st_local": len(re.findall(r"\bst\.local\b", body)),
            "alloca": len(re.findall(r"\balloca\.", body)),
        }
    return out


def decode_mlir_string(s):
    """MLIR prints a string's '\\' as '\\\\' and other bytes it escapes as '\\XX'."""
    return re.sub(r"\\(\\|[0-9A-Fa-f]{2})",
                  lambda m: "\\" if m[1] == "\\" else chr(int(m[1], 16)), s)


def digest(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()


def identity(paths):
    """Size and mtime of the files and of the shared libraries they load
    (indexpool-compile is a small driver over libIndexPool.so): a rebuild or
    a new LLVM changes them, hashing their bytes would cost more than a hit."""
    files = {os.path.realpath(p) for p in paths if os.path.exists(p)}
    for p in list(files):
        try:
            ldd = subprocess.run(["ldd", p], capture_output=True, text=True).stdout
        except OSError:
            ldd = ""
        files |= {os.path.realpath(lib) for lib in re.findall(r"=> (/\S+)", ldd)}
    return digest(*(f"{f} {os.stat(f).st_size} {os.stat(f).st_mtime_ns}" for f in sorted(files)))


class Cache:
    """Gzipped JSON values in DIR/KEY.json.gz; no DIR, no cache."""

    def __init__(self, root):
        self.root, self.used = root, set()
        if root:
            os.makedirs(root, exist_ok=True)

    def _path(self, key):
        return os.path.join(self.root, key + ".json.gz")

    def get(self, key):
        if not self.root:
            return None
        self.used.add(key)
        try:
            with gzip.open(self._path(key), "rt") as f:
                return json.load(f)
        except (OSError, ValueError, EOFError):
            return None

    def put(self, key, value):
        if not self.root:
            return
        fd, tmp = tempfile.mkstemp(dir=self.root, suffix=".tmp")
        os.close(fd)
        with gzip.open(tmp, "wt") as f:
            json.dump(value, f)
        os.replace(tmp, self._path(key))

    def prune(self):
        """Drops what this run did not use: the cache holds one build's results."""
        for name in os.listdir(self.root):
            if name.removesuffix(".json.gz") not in self.used:
                os.remove(os.path.join(self.root, name))


class Gate:
    def __init__(self, args):
        self.args = args
        self.compile_tool = os.path.join(args.tools, "indexpool-compile")
        self.opt_tool = os.path.join(args.tools, "indexpool-opt")
        libdevice = os.path.join(os.environ["CUDA_HOME"], "nvvm", "libdevice", "libdevice.10.bc")
        self.tools_id = identity([self.compile_tool, self.opt_tool, libdevice])
        self.ptxas_id = identity([args.ptxas])
        self.cache = Cache(args.cache)
        self.lock = threading.Lock()
        self.runs = {tool: [0, 0.0] for tool in ("indexpool-compile", "indexpool-opt", "ptxas")}
        self.hits = 0

    def run(self, cmd):
        """Runs a tool, counting its runs and seconds for the summary. A tool
        killed by a signal (a crash, the OOM killer) stops the gate: such an
        answer must not be cached as the compiler's."""
        start = time.time()
        for attempt in range(10):
            try:
                r = subprocess.run(cmd, capture_output=True, text=True)
                break
            except OSError as e:  # ETXTBSY: the build is rewriting the tool
                if e.errno != errno.ETXTBSY or attempt == 9:
                    fail(f"cannot run {cmd[0]}: {e}")
                time.sleep(1)
        if r.returncode < 0:
            fail(f"{' '.join(cmd)} was killed by signal {-r.returncode}:\n{r.stderr[-2000:]}")
        with self.lock:
            runs = self.runs[os.path.basename(cmd[0]) if cmd[0] != self.args.ptxas else "ptxas"]
            runs[0] += 1
            runs[1] += time.time() - start
        return r

    def cached(self, key, run):
        """run()'s value, from the cache when this key was run before."""
        value = self.cache.get(key)
        if value is None:
            value = run()
            self.cache.put(key, value)
        else:
            with self.lock:
                self.hits += 1
        return value

    def rel(self, path):
        rel = os.path.relpath(path, self.args.source)
        return path if rel.startswith("..") else rel

    def compile(self, path, text, chip, fn=None):
        """{function: PTX} that indexpool-compile wrote, its error ('' if none)
        and {function: error} of the functions that failed (--keep-going)."""
        def run():
            with tempfile.TemporaryDirectory() as out:
                cmd = [self.compile_tool, path, f"--chip={chip}", "--emit=ptx",
                       "--keep-going", "-o", out]
                r = self.run(cmd + ([f"--function={fn}"] if fn else []))
                suffix = f".{chip}.ptx"
                ptx = {name.removesuffix(suffix): open(os.path.join(out, name)).read()
                       for name in os.listdir(out) if name.endswith(suffix)}
            return [ptx, first_error(r.stderr + r.stdout) if r.returncode else "",
                    function_errors(r.stderr)]
        key = digest("compile", self.tools_id, chip, fn or "*", self.rel(path), text)
        return self.cached(key, run)

    def opt_modules(self, path, text, chip, fn):
        """The PTX modules of fn's kernels from indexpool-opt: fn alone, else its
        whole file (fn calls another public function); or the error."""
        def run():
            errors = []
            with tempfile.TemporaryDirectory() as d:
                alone = os.path.join(d, "function.mlir")
                with open(alone, "w") as f:
                    f.write(function_module(text, fn))
                for source in (alone, path):
                    r = self.run([self.opt_tool, source, "--indexpool-fuse",
                                  f"--indexpool-to-nvvm=chip={chip} format=isa"])
                    if r.returncode == 0:
                        return [[decode_mlir_string(a) for a in ASSEMBLY.findall(r.stdout)], ""]
                    errors.append(first_error(r.stderr))
            return [[], errors[-1]]  # the whole file's: its locations are the file's
        return self.cached(digest("opt", self.tools_id, chip, fn, self.rel(path), text), run)

    def ptxas(self, ptx, chip):
        """{kernel: numbers} by ptxas -v and the PTX, and ptxas's error."""
        def run():
            with tempfile.TemporaryDirectory() as d:
                src = os.path.join(d, "kernels.ptx")
                with open(src, "w") as f:
                    f.write(ptx)
                r = self.run([self.args.ptxas, "-v", f"-arch={chip}", *self.args.ptxas_arg,
                              src, "-o", os.devnull])
            if r.returncode:
                return [{}, first_error(r.stderr + r.stdout)]
            kernels, local = parse_ptxas(r.stderr), ptx_local(ptx)
            return [{k: {**v, **local.get(k, {})} for k, v in kernels.items()}, ""]
        return self.cached(digest("ptxas", self.ptxas_id, chip, *self.args.ptxas_arg, ptx), run)

    def check(self, job):
        """One file on one chip: its kernels and failures (Kernel), the functions
        not checked and those refused with no kernel, as (function, reason)."""
        path, chip = job
        with open(path) as f:
            text = f.read()
        file, kernels, not_checked, refused = self.rel(path), [], [], []
        functions = public_functions(text)
        written, file_error, errors = (self.compile(path, text, chip) if functions
                                       else ({}, "", {}))
        # (function, PTX module, the kernels of it that are the function's)
        modules = [(fn, written[fn], None) for fn in functions if fn in written]
        for fn in [fn for fn in functions if fn not in written] if file_error else []:
            # --keep-going reported each failure; a file that failed as a
            # whole (before any function) is compiled one function at a time.
            ptx, error = ({}, errors[fn]) if fn in errors else \
                self.compile(path, text, chip, fn)[:2]
            if not error:
                modules += [(fn, p, None) for p in ptx.values()]
            elif any(r in error for r in NO_KERNEL_REFUSALS):
                refused.append((fn, error))
            elif any(r in error for r in HOST_REFUSALS):
                ptxs, opt_error = self.opt_modules(path, text, chip, fn)
                if opt_error:
                    not_checked.append((fn, f"{error}; indexpool-opt: {opt_error}"))
                # Outlined kernels are named after their function: from the
                # whole file, keep fn's (fn_kernel, fn_kernel_N) only.
                mine = re.compile(re.escape(fn) + r"_kernel(_\d+)?$")
                modules += [(fn, p, mine) for p in ptxs]
            else:
                kernels.append(self.failure(file, fn, chip, error))
        for fn, ptx, mine in modules:
            found, error = self.ptxas(ptx, chip)
            if error:
                kernels.append(self.failure(file, fn, chip, error))
            kernels += [Kernel(file, fn, chip, k, n) for k, n in sorted(found.items())
                        if not mine or mine.match(k)]
        return kernels, not_checked, refused

    @staticmethod
    def failure(file, fn, chip, error):
        """A compile or ptxas error, as an offender of the kernel it names."""
        m = ERROR_KERNEL.search(error)
        kernel = (m[1] or m[2]) if m else "-"
        # LLVM's "in function NAME SIGNATURE: MESSAGE": the signature is noise.
        error = re.sub(r"^.*in function \w+[^:]*: ", "", error)
        return Kernel(file, fn, chip, kernel, {}, error)


def chip_table(compile_tool, any_file):
    """The chips indexpool-compile knows, from its refusal of an unknown one."""
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run([compile_tool, any_file, "--chip=sm_0", "-o", out],
                           capture_output=True, text=True)
    m = re.search(r"known chips: ([\w, ]+)", r.stderr + r.stdout)
    if not m:
        fail(f"no chip table in indexpool-compile's answer to --chip=sm_0:\n{r.stderr}{r.stdout}")
    return [c.strip() for c in m[1].split(",") if c.strip()]


BASELINE_HEADER = """\
# Known GPU kernel offenders: kernels with a stack frame, spills or local-memory
# traffic, and compile failures, on the chips of indexpool-compile's table.
# This is debt, not an allowance. test/gpu_kernel_gate.py --baseline THIS
# fails on an offender not listed here, on one worse than its line and on a
# line that no longer offends: delete the lines a fix clears, or rewrite the
# file with `--write-baseline`; a new line is new debt, for a reviewer to
# agree to.
#
# FILE FUNCTION CHIP KERNEL [stack=] [spill_stores=] [spill_loads=] (bytes, by
#   ptxas -v) [local=depot:BYTES,ld:N,st:N,alloca:N (the PTX)] CAUSE, zeros
#   left out, or FILE FUNCTION CHIP KERNEL failed F. The causes:
""" + "".join(f"#   {tag}: {text}\n" for tag, text in CAUSES.items())


def read_baseline(path):
    """{key: (numbers, failed, cause, line)} from the baseline file (none: empty)."""
    entries = {}
    if path is None or not os.path.exists(path):
        return entries
    with open(path) as f:
        for n, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) < 6 or fields[-1] not in CAUSES:
                fail(f"{path}:{n}: not FILE FUNCTION CHIP KERNEL NUMBERS CAUSE: {line.strip()}")
            numbers = {}
            for field in fields[4:-1]:
                name, _, value = field.partition("=")
                if name == "local":
                    parts = dict(p.split(":") for p in value.split(","))
                    numbers.update({k: int(parts.get(short, 0)) for k, short in LOCAL.items()})
                elif name in COUNTS:
                    numbers[name] = int(value)
            entries[tuple(fields[:4])] = (numbers, fields[4] == "failed", fields[-1], line.strip())
    return entries


def write_baseline(path, offenders, baseline, in_scope):
    """This run's offenders (their cause tags kept where the baseline has them)
    and the baseline's lines outside this run, sorted."""
    lines = {key: entry[3] for key, entry in baseline.items() if not in_scope(key)}
    for o in offenders:
        numbers = "failed" if o.error else o.numbers_text(full=False)
        cause = baseline[o.key][2] if o.key in baseline else o.cause()
        lines[o.key] = f"{' '.join(o.key)} {numbers} {cause}"
    with open(path, "w") as f:
        f.write(BASELINE_HEADER + "".join(lines[key] + "\n" for key in sorted(lines, key=sort_key)))
    return len(lines)


def verdict(offender, entry):
    """NEW, WORSE or known against its baseline entry; known+ where it is better
    (a line to tighten: the ratchet holds only what the file says). A compile
    failure is worse than any numbers."""
    if entry is None:
        return "NEW"
    numbers, failed, _, _ = entry
    if offender.error or failed:
        return ("known" if offender.error else "known+") if failed else "WORSE"
    change = [offender.numbers.get(k, 0) - numbers.get(k, 0) for k in COUNTS]
    return "WORSE" if max(change) > 0 else "known+" if min(change) < 0 else "known"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("--tools", required=True, help="folder of indexpool-compile and indexpool-opt")
    ap.add_argument("--source", default=root, help="the repository (default: %(default)s)")
    ap.add_argument("--baseline", help="offenders agreed as debt (default: none)")
    ap.add_argument("--cache", help="keep PTX and ptxas reports here between runs")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--chip", action="append", help="check only this chip of the table")
    ap.add_argument("--ptxas", help="default: $CUDA_HOME/bin/ptxas")
    ap.add_argument("--ptxas-arg", action="append", default=[], help="an extra ptxas argument")
    ap.add_argument("--write-baseline", action="store_true",
                    help="write this run's offenders as the baseline and pass")
    ap.add_argument("files", nargs="*",
                    help="default: the examples, GPU benchmarks and integration tests")
    args = ap.parse_args()
    start = time.time()

    os.environ.setdefault("CUDA_HOME", "/usr/local/cuda")
    args.source = os.path.abspath(args.source)
    if args.write_baseline and not args.baseline:
        ap.error("--write-baseline needs --baseline FILE")
    args.ptxas = args.ptxas or os.path.join(os.environ["CUDA_HOME"], "bin", "ptxas")
    if not os.access(args.ptxas, os.X_OK):
        print(f"gpu_kernel_gate: skipped: no ptxas at {args.ptxas} (set CUDA_HOME)")
        return 77
    for tool in ("indexpool-compile", "indexpool-opt"):
        if not os.access(os.path.join(args.tools, tool), os.X_OK):
            fail(f"no {tool} in {args.tools}")
    files = [os.path.abspath(f) for f in args.files] or sorted(
        f for pattern in ("examples/*.mlir", "bench/gpu/*.mlir", "test/Integration/**/*.mlir")
        for f in glob.glob(os.path.join(args.source, pattern), recursive=True))
    if not files:
        fail(f"no .mlir file under {args.source}")
    table = chip_table(os.path.join(args.tools, "indexpool-compile"), files[0])
    unknown = [c for c in args.chip or [] if c not in table]
    if unknown:
        fail(f"{', '.join(unknown)} not in indexpool-compile's chip table: {', '.join(table)}")
    chips = [c for c in table if not args.chip or c in args.chip]

    gate = Gate(args)
    # The largest files first: they take longest, the pool drains evenly.
    jobs = sorted(((f, c) for f in files for c in chips), key=lambda j: -os.path.getsize(j[0]))
    pool = ThreadPoolExecutor(args.jobs)
    try:
        results = list(pool.map(gate.check, jobs))
    finally:  # a tool error stops the gate without running the jobs left
        pool.shutdown(cancel_futures=True)
    kernels = [k for r in results for k in r[0]]
    offenders = sorted((k for k in kernels if k.offends()), key=lambda k: sort_key(k.key))

    # Baseline lines outside this run (other files or chips) stand as they are.
    baseline = read_baseline(args.baseline)
    checked_files = {gate.rel(f) for f in files}
    in_scope = lambda key: key[2] in chips and (not args.files or key[0] in checked_files)
    if args.write_baseline:
        n = write_baseline(args.baseline, offenders, baseline, in_scope)
        print(f"gpu_kernel_gate: wrote {n} lines to {args.baseline}")
        baseline = read_baseline(args.baseline)
    found = {o.key for o in offenders}
    stale = sorted((key for key in baseline if in_scope(key) and key not in found), key=sort_key)

    verdicts = {"known": [], "known+": [], "WORSE": [], "NEW": []}
    for o in offenders:
        verdicts[verdict(o, baseline.get(o.key))].append(o)
    for name in verdicts:
        for o in verdicts[name]:
            note = {"known+": " (better than its baseline line: tighten it)",
                    "WORSE": f" (baseline: {baseline.get(o.key, [''] * 4)[3]})"}.get(name, "")
            print(f"{name.rstrip('+')} {o.describe()}{note}")
    for key in stale:
        print(f"STALE {' '.join(key)}: no longer offends, delete its baseline line")

    # The summary.
    print(f"# {len(files)} files, {sum(len(public_functions(open(f).read())) for f in files)} "
          f"public functions, chips {' '.join(chips)}")
    per_chip = {c: sum(1 for k in kernels if k.chip == c and not k.error) for c in chips}
    print("# kernels checked: " + ", ".join(f"{c} {n}" for c, n in per_chip.items()))
    refused = [why for r in results for _, why in r[2]]
    if refused:
        kinds = {r: sum(1 for why in refused if r in why) for r in NO_KERNEL_REFUSALS}
        print(f"# no kernel to check (documented refusals): {len(refused)} function x chip ("
              + ", ".join(f"'{r}': {n}" for r, n in kinds.items() if n) + ")")
    not_checked = {}
    for (path, chip), r in zip(jobs, results):
        for fn, why in r[1]:
            not_checked.setdefault((gate.rel(path), fn, why), []).append(chip)
    for (file, fn, why), where in sorted(not_checked.items()):
        print(f"# not checked: {file} {fn} on {','.join(sorted(where, key=chips.index))}: {why}")
    known = len(verdicts["known"]) + len(verdicts["known+"])
    print(f"# offenders {len(offenders)} (known {known}, WORSE {len(verdicts['WORSE'])}, "
          f"NEW {len(verdicts['NEW'])}), STALE {len(stale)}")
    runs = ", ".join(f"{tool} {n} times ({t:.0f} s)" for tool, (n, t) in gate.runs.items())
    print(f"# ran {runs}; {gate.hits} results from the cache; wall {time.time() - start:.1f} s")
    if args.cache and not args.files and not args.chip:
        gate.cache.prune()
    if not (verdicts["WORSE"] or verdicts["NEW"] or stale):
        return 0
    if args.baseline:
        print("gpu_kernel_gate: FAILED: fix the NEW and WORSE kernels above, delete the STALE "
              f"lines from {args.baseline} (its header says why it exists)")
    else:
        print("gpu_kernel_gate: FAILED: fix the kernels above (a stack frame, a spill or "
              "local memory on some chip, or a compile failure)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
