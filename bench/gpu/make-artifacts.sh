#!/usr/bin/env bash
# Runs HERE (LLVM/MLIR, CUDA toolkit, no GPU): compiles the benchmark
# functions and the integration tests' functions for sm_90 and sm_80 (the
# selects and the score tests also for sm_90a: warpgroup MMAs) with
# indexpool-compile (dynamic ones once, for every size; the shapes their
# tests run them with go next to the manifest, NAME.CHIP.shapes, for
# run-on-device.sh), into a folder small enough to carry to the GPU machine
# (kernels + manifests; the sources for a runtime-only build are carried by
# the device tool as the working tree), plus static-report.md, the static
# performance report of the benchmark kernels (bench/gpu/static_report.py),
# and the autotuner's candidates for them (tune/CHIP/FUNCTION). For the
# device run's checks (run-on-device.sh's header): twins/KIND/CHIP, the
# M = 64 select at 2^14 pools (its float64 reference at 2^18 takes
# minutes) built as each timed kind is; ptx-jit/sm_80 and ptx-jit/sm_86,
# the FP8-query score and select tests and select_1m_fp8q as PTX, which a
# 9.0 GPU runs through the driver's JIT (the sm_80 / sm_86 kernels: a
# software FP8 decoder and the bf16 MMA for FP8 queries).
# Usage: bench/gpu/make-artifacts.sh [OUT_DIR]   (default build/gpu-artifacts)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
OUT=${1:-$BUILD_DIR/gpu-artifacts}
COMPILE=$BUILD_DIR/bin/indexpool-compile
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

rm -rf "$OUT"
mkdir -p "$OUT/bench" "$OUT/tests" "$OUT/cli11"
# CLI11's headers (libcli11-dev, 400 KB): the tools' flag library needs
# them, and the GPU machine has no package archive (run-on-device.sh passes
# them to its runtime-only build).
cp -r /usr/include/CLI "$OUT/cli11/"

# compile_tests CHIP DIR FILE...: every function of the files for CHIP into
# DIR/FOLDER-FILE, one folder per file (test files share function names:
# CPU/paged-i4's and CPU/paged-f4's @compress; EMIT=ptx: as PTX, else
# cubins); functions with host code the manifest cannot hold are listed.
compile_tests() {
  local chip=$1 root=$2 dir f fn shapes emit=${EMIT:-cubin}
  shift 2
  for f in "$@"; do
    dir=$root/$(basename "$(dirname "$f")")-$(basename "$f" .mlir)
    for fn in $(grep -oE '^func\.func @[A-Za-z_0-9]+' "$f" | cut -d@ -f2); do
      # Dynamic functions compile once; the shapes of the first RUN line
      # that runs them are the ones the device run launches them with.
      shapes=$(grep -E "^// RUN: .*--function=$fn( |$)" "$f" | head -1 |
               grep -oE -- '--input-shape=[0-9]+:[0-9x]+' | tr '\n' ' ' || true)
      # One that has no kernel for every size (a dynamic D: a per-thread
      # scratch row would be local memory) compiles for its shapes.
      if "$COMPILE" "$f" --function=$fn --chip=$chip --emit=$emit -o "$dir" \
          >/dev/null 2>"$OUT/why.log"; then
        if [ -n "$shapes" ]; then echo "$shapes" > "$dir/$fn.$chip.shapes"; fi
      elif [ -n "$shapes" ] &&
           "$COMPILE" "$f" --function=$fn --chip=$chip --emit=$emit $shapes \
             -o "$dir" >/dev/null 2>"$OUT/why.log"; then
        :
      else
        echo "$(basename "$f") @$fn $chip: $(grep -m1 "error:" "$OUT/why.log" || tail -1 "$OUT/why.log")" >> "$OUT/not-compiled.txt"
      fi
    done
  done
}
for chip in sm_90 sm_80; do
  "$COMPILE" "$ROOT/bench/gpu/kernels.mlir" --chip=$chip --emit=cubin -o "$OUT/bench/$chip" >/dev/null
  # The selects' scores on the CUDA cores too (--tensor-cores=false), for
  # run-on-device.sh's tensor cores vs CUDA cores ratio in one run.
  for fn in select_1m select_1m_m64; do
    "$COMPILE" "$ROOT/bench/gpu/kernels.mlir" --function=$fn --chip=$chip --emit=cubin \
      --tensor-cores=false -o "$OUT/bench-cuda-cores/$chip" >/dev/null
  done
  # Functions with static shapes from the CPU integration tests: every op.
  compile_tests $chip "$OUT/tests/$chip" "$ROOT"/test/Integration/CPU/*.mlir \
    "$ROOT"/test/Integration/GPUEmulator/*.mlir "$ROOT"/test/Target/Inputs/kernels.mlir
done
# sm_90a (H100 / H200 only): the scores on warpgroup MMAs (wgmma), the
# selects' benchmarks and the score tests' functions.
for fn in select_1m select_2m select_1m_m64 select_1m_fp8q; do
  "$COMPILE" "$ROOT/bench/gpu/kernels.mlir" --function=$fn --chip=sm_90a --emit=cubin \
    -o "$OUT/bench-wgmma/sm_90a" >/dev/null
done
compile_tests sm_90a "$OUT/tests/sm_90a" "$ROOT"/test/Integration/GPUEmulator/score-*.mlir \
  "$ROOT"/test/Integration/GPUEmulator/mma-ops.mlir "$ROOT"/test/Integration/CPU/score.mlir \
  "$ROOT"/test/Integration/CPU/refine.mlir "$ROOT"/test/Integration/CPU/select.mlir
# The sm_80 / sm_86 builds of the FP8-query scores as PTX (see the top).
for chip in sm_80 sm_86; do
  EMIT=ptx compile_tests $chip "$OUT/ptx-jit/$chip" \
    "$ROOT"/test/Integration/GPUEmulator/score-mma.mlir "$ROOT"/test/Integration/GPUEmulator/mma-ops.mlir
  "$COMPILE" "$ROOT/bench/gpu/kernels.mlir" --function=select_1m_fp8q --chip=$chip --emit=ptx \
    -o "$OUT/ptx-jit/$chip/bench" >/dev/null
done
rm -f "$OUT/why.log"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
# The M = 64 select's twins: kernels.mlir's select_1m_m64 at 2^14 pools,
# compiled as each timed build of it (run-on-device.sh verifies these).
awk '/^func\.func @select_1m_m64\(/,/^}/' "$ROOT/bench/gpu/kernels.mlir" |
  sed 's/262144/16384/g' > "$SCRATCH/twins.mlir"
grep -q 16384 "$SCRATCH/twins.mlir" || { echo "no select_1m_m64 in kernels.mlir"; exit 1; }
for chip in sm_90 sm_80; do
  "$COMPILE" "$SCRATCH/twins.mlir" --chip=$chip --emit=cubin -o "$OUT/twins/bench/$chip" >/dev/null
  "$COMPILE" "$SCRATCH/twins.mlir" --chip=$chip --emit=cubin --tensor-cores=false \
    -o "$OUT/twins/bench-cuda-cores/$chip" >/dev/null
done
"$COMPILE" "$SCRATCH/twins.mlir" --chip=sm_90a --emit=cubin -o "$OUT/twins/bench-wgmma/sm_90a" >/dev/null
# The cache runtime's kernels (indexpool-cache-gpu-check, run-on-device.sh),
# and a refine cache's four (cache-refine.mlir: the token tier's append and
# refine_paged too) into cache-refine/CHIP.
for chip in sm_90 sm_80; do
  "$COMPILE" "$ROOT/bench/gpu/cache.mlir" --chip=$chip --emit=cubin -o "$OUT/cache/$chip" >/dev/null
  "$COMPILE" "$ROOT/bench/gpu/cache-refine.mlir" --chip=$chip --emit=cubin \
    -o "$OUT/cache-refine/$chip" >/dev/null
done
# The tuner's candidates for the benchmark functions (indexpool-tune: the
# cost model's launch is candidate 0 of every op, and of every other valid
# launch only the TUNE_CANDIDATES - 1 the model ranks best are compiled),
# measured on the GPU machine by run-on-device.sh's tune stage with
# indexpool-tune-measure under a time budget (docs/tuning.md, "Budget").
TUNE=$BUILD_DIR/bin/indexpool-tune
for chip in sm_90 sm_80; do
  for fn in compress_1m select_1m; do
    "$TUNE" "$ROOT/bench/gpu/kernels.mlir" --chip=$chip --function=$fn \
      --max-candidates=${TUNE_CANDIDATES:-8} -o "$OUT/tune/$chip/$fn" --quiet >/dev/null
  done
done
# The static report (ESTIMATES from ptxas -v and the chip table, no GPU) of
# the benchmark kernels: ptxas -v reads PTX, not the cubins above, so the
# PTX goes to a scratch folder and only the report into OUT.
for chip in sm_90 sm_80; do
  "$COMPILE" "$ROOT/bench/gpu/kernels.mlir" --chip=$chip --emit=ptx -o "$SCRATCH/$chip" >/dev/null
done
for fn in select_1m select_1m_m64 select_1m_fp8q; do
  "$COMPILE" "$ROOT/bench/gpu/kernels.mlir" --function=$fn --chip=sm_90a --emit=ptx \
    -o "$SCRATCH/sm_90a" >/dev/null
done
python3 "$ROOT/bench/gpu/static_report.py" "$SCRATCH/sm_90" "$SCRATCH/sm_90a" "$SCRATCH/sm_80" \
  | sed "s|$SCRATCH/||g" > "$OUT/static-report.md"
echo "static report (estimates): $OUT/static-report.md"
du -sh "$OUT"
echo "manifests: $(find "$OUT" -name '*.json' | wc -l)"
[ -f "$OUT/not-compiled.txt" ] && { echo "not compiled:"; cat "$OUT/not-compiled.txt"; }
exit 0
