#!/usr/bin/env bash
# Runs ON THE GPU MACHINE, as it is (CUDA, CMake, a C++ compiler, maybe
# PyTorch and Triton; no LLVM/MLIR): a runtime-only build, every artifact of
# make-artifacts.sh through indexpool-launch --random-inputs --verify, the
# cache runtime on the CUDA backend with every call checked (a plain cache,
# then a refine cache with its token tier), the decode step (append_paged +
# select_paged, B = 1, 8, 64 sequences of 64K tokens) by direct launches vs
# one CUDA graph replay (checked equal, ratio printed), the
# autotuner's candidates (indexpool-tune-measure, tuned vs cost model), then the
# compress / select benchmarks against a device-to-device copy of the same
# bytes, PyTorch eager and Triton, measured in this same run. Results go to
# ./gpu-results (RESULTS); when the device tool's $OUT is set, which returns
# only a few files, they come back packed as $OUT/gpu-results.tgz.
#
# The kernel families that have never run on a GPU (none was lent after the
# H200 run of 2026-12-04) and the stages that cover them. Every one is
# checked against the float64 reference before anything of it is timed; a
# timing whose check failed, timed out or did not run is printed with
# "NOT VERIFIED: do not trust this timing" (bench-*.txt, ncu-summary.txt,
# the ratios).
#   - Key fragments in registers (the mma.sync score with the keys as the A
#     operand, the default on every chip): verify (tests/CHIP: score-mma,
#     mma-ops, select, refine, ...; the timed selects), then bench and
#     profile (select_1m, select_2m, select_1m_m64, select_1m_fp8q).
#   - sm_90a wgmma (9.0 GPUs only): verify (tests/sm_90a; bench-wgmma's
#     selects), then bench (wgmma against mma.sync, same run).
#   - The bf16-MMA score for FP8 queries (the query decoded once by a kernel
#     of its own): on 9.0 the sm_90 build (cvt decoder; select_1m_fp8q and
#     the tests' score_fp8_query*, select_paged_fp8_query), verified and
#     timed. The sm_80 / sm_86 kernels themselves (software FP8 decoder)
#     run as cubins only on an 8.0 / 8.6 GPU, where art_chip=sm_80 verifies
#     and times them; on 9.0 their PTX (ptx-jit/sm_80, ptx-jit/sm_86) runs
#     through the driver's JIT and is verified only: the JIT emits 9.0 SASS,
#     so its time says nothing about an A100 and is not taken.
#   - CUDA graphs: decode (one replay of the decode step against direct
#     launches: bytes equal or exit 1; the kernels are the cache's, checked
#     against the reference by the cache stage first), then its times.
#   - The cache's CUDA backend: cache (appends, forks, frees and selects,
#     every call checked against the reference; not timed).
#   - The token tier: cache (the refine cache: append_tokens and
#     refine_paged after every step, checked) and verify (the tests'
#     token-tier and refine_paged functions); not timed.
#   - i4 codes: verify (tests/CHIP/CPU-paged-i4: compress, select, append
#     and refine_gpu on the paged i4 layout); not timed (no i4 benchmark).
# Timed artifacts whose float64 reference takes minutes are verified
# through a twin compiled from the same source (make-artifacts.sh):
# compress_2m through compress_1m (kernels.mlir's same compress at half the
# tokens), select_1m_m64 through twins/KIND/CHIP (the same function at 2^14
# pools instead of 2^18); the lines say so.
# Usage: bench/gpu/run-on-device.sh ARTIFACTS_DIR
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ARTS=${1:?usage: run-on-device.sh ARTIFACTS_DIR}
RESULTS=${RESULTS:-$PWD/gpu-results}
mkdir -p "$RESULTS"
# The verdicts a timing is marked with come from this run only.
rm -f "$RESULTS/verify-all.txt" "$RESULTS/cache-check.passed"
BUILD=$RESULTS/build-runtime
pack() { [ -n "${OUT:-}" ] && tar czf "$OUT/gpu-results.tgz" --exclude=build-runtime -C "$RESULTS" .; }
trap pack EXIT
# One device call has a hard limit: every launch gets its own timeout, and a
# stage starts only while the budget (BUDGET_S, default 450 s from the
# start, the build included: the whole script fits 8 minutes) lasts, so a
# hang or a slow stage costs that stage, not the results of the others.
START=$(date +%s)
BUDGET_S=${BUDGET_S:-450}
# STAGES picks what runs (default: all, in this order).
STAGES=" ${STAGES:-verify cache decode bench anchors profile tune} "
# BENCHES: the benchmark functions the bench and profile stages run;
# CUDA_CORES=0 leaves out the CUDA-core selects.
BENCHES=${BENCHES:-compress_1m select_1m compress_2m select_2m compress_lean_1m select_1m_m64 select_1m_fp8q}
CUDA_CORES=${CUDA_CORES:-1}
want() { [[ $STAGES == *" $1 "* ]]; }
left() { echo $((BUDGET_S - ($(date +%s) - START))); }
stage() { # stage NAME MIN_SECONDS: false (and says so) when too little is left
  if [ "$(left)" -lt "$2" ]; then echo "== $1: skipped, $(left) s of the budget left"; return 1; fi
  echo "== $1 ($(left) s left)"
}

stage "runtime-only build" 0
# CLI11's headers come with the artifacts (make-artifacts.sh).
cmake -S "$ROOT" -B "$BUILD" -DINDEXPOOL_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
  -DINDEXPOOL_CLI11_INCLUDE_DIR="$ARTS/cli11" >"$RESULTS/build.log" 2>&1 &&
  cmake --build "$BUILD" -j "$(nproc)" >>"$RESULTS/build.log" 2>&1 || { tail -20 "$RESULTS/build.log"; exit 1; }
LAUNCH=$BUILD/bin/indexpool-launch
nvidia-smi --query-gpu=name,memory.total,clocks.max.memory --format=csv > "$RESULTS/gpu.txt" 2>&1
cat "$RESULTS/gpu.txt"
# cubins run on their own major architecture: sm_90 on 9.0, sm_80 on 8.x.
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1)
chip=sm_${cc/./}
case $cc in
  9.0) art_chip=sm_90 ;;
  8.*) art_chip=sm_80 ;;
  *) echo "no artifacts for compute capability $cc (make-artifacts.sh builds sm_90 and sm_80)"; exit 1 ;;
esac

# The timed artifacts: KIND (bench, bench-wgmma, bench-cuda-cores), chip,
# functions; twin KIND CHIP NAME: the manifest that verifies NAME's build.
WGMMA_BENCHES="select_1m select_2m select_1m_m64 select_1m_fp8q"
CUDA_CORE_BENCHES="select_1m select_1m_m64"
twin() {
  case $3 in
    compress_2m) echo "$ARTS/$1/$2/compress_1m.$2.json" ;;
    select_1m_m64) echo "$ARTS/twins/$1/$2/select_1m_m64.$2.json" ;;
    *) echo "$ARTS/$1/$2/$3.$2.json" ;;
  esac
}
# verdict KIND CHIP NAME: one line, "verified: PASS ..." only when the
# verify stage passed NAME's build or its twin (verify-all.txt).
verdict() {
  local m t line
  m=$ARTS/$1/$2/$3.$2.json; t=$(twin "$@")
  line=$(grep -F " $t" "$RESULTS/verify-all.txt" 2>/dev/null | head -1)
  case $line in
    "PASS $t") if [ "$t" = "$m" ]; then echo "verified: PASS"
               else echo "verified: PASS through its twin ${t#"$ARTS"/}"; fi ;;
    "") echo "NOT VERIFIED (no verification of ${t#"$ARTS"/} in this run): do not trust this timing" ;;
    *) echo "NOT VERIFIED (${line%%:*} ${t#"$ARTS"/}): do not trust this timing" ;;
  esac
}

if want verify && stage "verify every artifact for $art_chip on $chip" 30; then
# Verification is independent per artifact: 8 at a time (the float64
# reference runs on the CPU). One line per artifact: PASS, FAILED: or
# TIMEOUT: and its path (verdict above reads them).
verify_one() {
  local m=$1 name=${1#"$ARTS"/}; name=${name//\//_}; name=${name%.json}
  # A dynamic artifact runs with the shapes its test uses (NAME.CHIP.shapes).
  local shapes; shapes=$(cat "${m%.json}.shapes" 2>/dev/null || true)
  timeout 150 "$LAUNCH" "$m" --random-inputs=1 $shapes --verify >"$RESULTS/verify-$name.txt" 2>&1
  case $? in
    0) echo "PASS $m" ;;
    124) echo "TIMEOUT: $m (150 s)" ;;
    *) echo "FAILED: $m"; tail -3 "$RESULTS/verify-$name.txt" ;;
  esac
}
export -f verify_one; export LAUNCH RESULTS ARTS
# The timed artifacts (or their twins) first, the slowest references
# (compress) leading; then every test function; on 9.0 the sm_90a builds
# (warpgroup MMAs) and the sm_80 / sm_86 PTX through the JIT (on 8.6 the
# sm_86 PTX; 8.0 runs the sm_80 cubins natively).
timed=()
for b in $BENCHES; do timed+=("$(twin bench $art_chip $b)"); done
if [ "$cc" = 9.0 ]; then
  for b in $WGMMA_BENCHES; do timed+=("$(twin bench-wgmma sm_90a $b)"); done
fi
if [ "$CUDA_CORES" = 1 ]; then
  for b in $CUDA_CORE_BENCHES; do timed+=("$(twin bench-cuda-cores $art_chip $b)"); done
fi
extra=()
[ "$cc" = 9.0 ] && extra=("$ARTS"/tests/sm_90a/*/*.json)
for jit in sm_80 sm_86; do
  [ "$jit" != "$art_chip" ] && [ "${jit#sm_}" -le "${cc/./}" ] && [ -d "$ARTS/ptx-jit/$jit" ] &&
    extra+=("$ARTS"/ptx-jit/$jit/*/*.json)
done
printf '%s\n' "${timed[@]}" | grep compress | sort -u > "$RESULTS/verify-list.txt"
{ printf '%s\n' "${timed[@]}" | grep -v compress; ls "$ARTS"/tests/$art_chip/*/*.json "${extra[@]}"; } |
  awk '!seen[$0]++' >> "$RESULTS/verify-list.txt"
xargs -P 8 -I{} bash -c 'verify_one {}' < "$RESULTS/verify-list.txt" > "$RESULTS/verify-all.txt"
grep -v '^PASS' "$RESULTS/verify-all.txt"
pass=$(grep -c '^PASS' "$RESULTS/verify-all.txt")
failed=$(grep -cE '^(FAILED|TIMEOUT):' "$RESULTS/verify-all.txt")
echo "verify: $pass passed, $failed failed or timed out, of $(wc -l < "$RESULTS/verify-list.txt")" |
  tee "$RESULTS/verify-summary.txt"
fi

if want cache && stage "the cache runtime on $chip, every call checked" 30; then
# A PagedCache on the CUDA backend (device memory, host and file tiers):
# appends, forks, frees and selects, each checked against the float64
# reference (bench/gpu/cache_check.cpp). The tool prints one summary line
# or the first failing call's; a failure or a timeout (status 124) also
# gets a FAILED line.
timeout 240 "$BUILD/bin/indexpool-cache-gpu-check" \
  "$ARTS/cache/$art_chip/append_paged.$art_chip.json" \
  "$ARTS/cache/$art_chip/select_paged.$art_chip.json" 60 2>&1 | tee "$RESULTS/cache-check.txt"
status=${PIPESTATUS[0]}
# The decode stage times these two kernels: it trusts them only after this.
[ "$status" = 0 ] && touch "$RESULTS/cache-check.passed"
[ "$status" = 0 ] || echo "FAILED: the cache check (status $status)" | tee -a "$RESULTS/cache-check.txt"
# A refine cache (cache-refine.mlir: C = 4, k = 16 pools; the token tier's
# append and refine_paged after each append and select, checked too): 40
# steps take both stages past their k and move pages of both tiers to the
# host and back, in seconds. Its lines start with "refine cache: ".
if [ "$(left)" -lt 20 ]; then
  echo "refine cache: skipped, $(left) s of the budget left" | tee "$RESULTS/cache-refine-check.txt"
else
  R=$ARTS/cache-refine/$art_chip
  timeout 90 "$BUILD/bin/indexpool-cache-gpu-check" \
    "$R/append_paged.$art_chip.json" "$R/select_paged.$art_chip.json" \
    "$R/append_tokens.$art_chip.json" "$R/refine_paged.$art_chip.json" 40 2>&1 |
    sed 's/^/refine cache: /' | tee "$RESULTS/cache-refine-check.txt"
  status=${PIPESTATUS[0]}
  [ "$status" = 0 ] ||
    echo "FAILED: the refine cache check (status $status)" | tee -a "$RESULTS/cache-refine-check.txt"
fi
fi

if want decode && stage "decode step on $chip: direct launches vs CUDA graph replay" 30; then
# bench/gpu/decode_graph.cpp: the replay must leave the direct launches'
# bytes (exit 1 otherwise); then 200 steps each way, device and issue times.
# Its kernels are the cache stage's, checked there against the reference.
timeout 120 "$BUILD/bin/indexpool-decode-graph-bench" \
  "$ARTS/cache/$art_chip/append_paged.$art_chip.json" \
  "$ARTS/cache/$art_chip/select_paged.$art_chip.json" \
  --batches=1,8,64 --tokens=65536 --steps=200 2>&1 | tee "$RESULTS/decode-graph.txt"
status=${PIPESTATUS[0]}
if [ "$status" != 0 ]; then
  echo "NOT VERIFIED (the graph replay check: status $status): do not trust these timings" |
    tee -a "$RESULTS/decode-graph.txt"
elif [ ! -f "$RESULTS/cache-check.passed" ]; then
  echo "NOT VERIFIED (the cache stage did not pass these kernels): do not trust these timings" |
    tee -a "$RESULTS/decode-graph.txt"
else
  echo "verified: PASS (cache stage; graph replay equal to direct launches)" |
    tee -a "$RESULTS/decode-graph.txt"
fi
fi

if want bench && stage "benchmarks" 30; then
# --copy-anchor: a device-to-device copy of the same bytes, same run. The
# random inputs are drawn on the host: 2.7 GB for compress_2m take a while.
# Each result starts with its verdict (the verify stage's, see verdict).
for b in $BENCHES; do
  verdict bench $art_chip $b | tee "$RESULTS/bench-$b.txt"
  timeout 180 "$LAUNCH" "$ARTS/bench/$art_chip/$b.$art_chip.json" --random-inputs=1 --benchmark=20 \
    --copy-anchor --print-device | tee -a "$RESULTS/bench-$b.txt"
done
# The selects built for sm_90a (scores on warpgroup MMAs), on 9.0.
if [ "$cc" = 9.0 ]; then
for b in $WGMMA_BENCHES; do
  verdict bench-wgmma sm_90a $b | tee "$RESULTS/bench-wgmma-$b.txt"
  timeout 60 "$LAUNCH" "$ARTS/bench-wgmma/sm_90a/$b.sm_90a.json" --random-inputs=1 --benchmark=20 \
    --copy-anchor | tee -a "$RESULTS/bench-wgmma-$b.txt"
done
fi
# The same selects with their scores on the CUDA cores (--tensor-cores=false).
if [ "$CUDA_CORES" = 1 ]; then
for b in $CUDA_CORE_BENCHES; do
  verdict bench-cuda-cores $art_chip $b | tee "$RESULTS/bench-cuda-cores-$b.txt"
  timeout 60 "$LAUNCH" "$ARTS/bench-cuda-cores/$art_chip/$b.$art_chip.json" --random-inputs=1 --benchmark=20 \
    --copy-anchor | tee -a "$RESULTS/bench-cuda-cores-$b.txt"
done
fi
fi
if ! want anchors || ! stage "PyTorch / Triton anchors" 90; then :
elif python3 -c "import torch" 2>/dev/null; then
  for n in 1m 2m; do
    tokens=$([ $n = 1m ] && echo 1048576 || echo 2097152)
    timeout 120 python3 "$ROOT/bench/gpu/torch_triton.py" --tokens $tokens --json "$RESULTS/anchors_$n.json" \
      | tee "$RESULTS/anchors_$n.txt"
    timeout 120 python3 "$ROOT/bench/gpu/torch_triton_select.py" --pools $((tokens / 4)) --rows 1 \
      --json "$RESULTS/anchors_select_$n.json" | tee "$RESULTS/anchors_select_$n.txt"
  done
  timeout 120 python3 "$ROOT/bench/gpu/torch_triton_select.py" --pools 262144 --rows 64 \
    --json "$RESULTS/anchors_select_1m_m64.json" | tee "$RESULTS/anchors_select_1m_m64.txt"
else
  echo "no PyTorch: no eager / Triton anchors" | tee "$RESULTS/anchors.txt"
fi

if want profile && stage "per-kernel times (Nsight Compute, clocks left alone)" 40; then
  NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  if [ -z "$NCU" ]; then echo "no ncu"; else
    for b in $BENCHES; do
      for kind in bench bench-cuda-cores; do
        [ $kind = bench-cuda-cores ] && [ "$CUDA_CORES" != 1 ] && continue
        m=$ARTS/$kind/$art_chip/$b.$art_chip.json
        [ -f "$m" ] || continue
        timeout 120 "$NCU" --clock-control none --metrics gpu__time_duration.sum --csv \
          "$LAUNCH" "$m" --random-inputs=1 > "$RESULTS/ncu-$kind-$b.csv" 2>"$RESULTS/ncu-$kind-$b.err"
        python3 "$ROOT/bench/gpu/ncu_summary.py" "$kind/$b ($(verdict $kind $art_chip $b))" \
          "$RESULTS/ncu-$kind-$b.csv" | tee -a "$RESULTS/ncu-summary.txt"
      done
    done
  fi
fi

if want tune && stage "autotuning (indexpool-tune-measure): the cost model's best candidates, verified, then timed" 60; then
MEASURE=$BUILD/bin/indexpool-tune-measure
# The plans hold candidate 0 (the cost model's launch) and the launches the
# model ranks best (make-artifacts.sh, TUNE_CANDIDATES); TUNE_PRUNE measures
# fewer. The stage takes what the budget leaves, at most TUNE_S (default
# 150 s), less 20 s for the ratios and the packing, split evenly over the
# plans still to run. Each measurement stops itself 15 s before its share
# (--time-budget) and writes what it measured, candidate 0 always
# included; SIGTERM at the share does the same, and SIGKILL 10 s later is
# the backstop.
TUNE_S=${TUNE_S:-150}
TUNE_PRUNE=${TUNE_PRUNE:-8}
tune_end=$(( $(date +%s) + ( $(left) - 20 < TUNE_S ? $(left) - 20 : TUNE_S ) ))
plans=("$ARTS"/tune/$art_chip/select_1m "$ARTS"/tune/$art_chip/compress_1m)
rm -f "$RESULTS/tune-summary.txt"
for i in "${!plans[@]}"; do
  plan=${plans[$i]}; fn=$(basename "$plan")
  share=$(( (tune_end - $(date +%s)) / (${#plans[@]} - i) ))
  if [ "$share" -lt 30 ]; then echo "tuning $fn: skipped, $share s left for it"; continue; fi
  echo "tuning $fn: $share s (--time-budget=$((share - 15)))"
  timeout -k 10 "$share" "$MEASURE" "$plan" --verify --repeat=20 --prune="$TUNE_PRUNE" \
    --time-budget=$((share - 15)) --quiet --db="$RESULTS/tuning-db-$fn.json" \
    > "$RESULTS/tune-$fn.txt" 2>&1 || echo "tuning $fn failed (status $?)"
  cp "$plan/measurements.json" "$RESULTS/tune-$fn-measurements.json" 2>/dev/null
  cat "$RESULTS/tune-$fn.txt"
  # Tuned vs the cost model (candidate 0), same run: the tool's own line.
  grep -h "tuned vs cost model" "$RESULTS/tune-$fn.txt" | sed "s/^/$fn: /" >> "$RESULTS/tune-summary.txt"
done
[ -s "$RESULTS/tune-summary.txt" ] && { echo "tuned vs cost model (same run):"; cat "$RESULTS/tune-summary.txt"; }
fi

echo "== ratios"
python3 - "$RESULTS" <<'PY'
import json, os, re, sys
res = sys.argv[1]
def verdict(*names):
    """' [NOT VERIFIED ...]' when any of the results' first lines (their
    verdict) is not a PASS; ' [... through its twin ...]' for a PASS of a
    twin; else ''."""
    bad, twins = [], []
    for name in names:
        path = os.path.join(res, name)
        first = open(path).readline().strip() if os.path.exists(path) else ""
        if not first.startswith("verified: PASS"):
            bad.append(f"{name}: {first or 'no verdict'}")
        elif "twin" in first:
            twins.append(first.split("verified: PASS ", 1)[1])
    if bad:
        return f" [NOT VERIFIED, do not trust: {'; '.join(bad)}]"
    return f" [verified {'; '.join(twins)}]" if twins else ""
anchors = {"compress_1m": "anchors_1m.json", "compress_2m": "anchors_2m.json",
           "select_1m": "anchors_select_1m.json", "select_2m": "anchors_select_2m.json",
           "select_1m_m64": "anchors_select_1m_m64.json"}
for b in ("compress_1m", "select_1m", "compress_2m", "select_2m", "compress_lean_1m",
          "select_1m_m64", "select_1m_fp8q"):
    path = os.path.join(res, f"bench-{b}.txt")
    text = open(path).read() if os.path.exists(path) else ""
    m = re.search(r"median_ms=([0-9.]+)", text)
    c = re.search(r"ratio_to_copy=([0-9.]+)", text)
    if not m:
        print(f"{b}: no measurement"); continue
    ms = float(m.group(1))
    line = f"{b}: {ms:.3f} ms"
    if c:
        line += f", {float(c.group(1)):.2f} of the device copy's bandwidth"
    path = os.path.join(res, anchors.get(b, "-"))
    if os.path.exists(path):
        a = json.load(open(path))
        line += f"; PyTorch eager {a['torch_ms'] / ms:.2f}x slower"
        if "triton_ms" in a:
            line += f"; Triton {a['triton_ms'] / ms:.2f}x slower"
    print(line + verdict(f"bench-{b}.txt"))
def median(name):
    path = os.path.join(res, name)
    m = re.search(r"median_ms=([0-9.]+)", open(path).read()) if os.path.exists(path) else None
    return float(m.group(1)) if m else None
# sm_90a's warpgroup MMAs against sm_90's mma.sync, same run.
for b in ("select_1m", "select_2m", "select_1m_m64", "select_1m_fp8q"):
    sync, wg = median(f"bench-{b}.txt"), median(f"bench-wgmma-{b}.txt")
    if sync and wg:
        print(f"{b}: wgmma (sm_90a) {wg:.3f} ms, mma.sync (sm_90) {sync:.3f} ms: "
              f"{sync / wg:.2f}x" + verdict(f"bench-{b}.txt", f"bench-wgmma-{b}.txt"))
# Tensor cores (the default) against the CUDA-core score, same run.
# The decode step: one CUDA graph replay against its direct launches.
path = os.path.join(res, "decode-graph.txt")
lines = open(path).read().splitlines() if os.path.exists(path) else []
decode_verdict = "" if any(l.startswith("verified: PASS") for l in lines) else \
    " [NOT VERIFIED, do not trust: " + next(
        (l for l in lines if l.startswith("NOT VERIFIED")), "no verdict") + "]"
for line in lines:
    m = re.match(r"decode B=(\d+) .*direct ([0-9.]+) ms/step .*graph ([0-9.]+) ms/step"
                 r".*graph_speedup=([0-9.]+)x issue_speedup=([0-9.]+)x", line)
    if m:
        print(f"decode step B={m.group(1)}: graph {m.group(3)} ms vs direct {m.group(2)} ms: "
              f"{m.group(4)}x (issuing {m.group(5)}x)" + decode_verdict)
for b in ("select_1m", "select_1m_m64"):
    times = []
    for name in (f"bench-{b}.txt", f"bench-cuda-cores-{b}.txt"):
        path = os.path.join(res, name)
        m = re.search(r"median_ms=([0-9.]+)", open(path).read()) if os.path.exists(path) else None
        times.append(float(m.group(1)) if m else None)
    if all(times):
        print(f"{b}: tensor cores {times[0]:.3f} ms, CUDA cores {times[1]:.3f} ms: "
              f"{times[1] / times[0]:.2f}x"
              + verdict(f"bench-{b}.txt", f"bench-cuda-cores-{b}.txt"))
PY
