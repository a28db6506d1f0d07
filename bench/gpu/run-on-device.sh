#!/usr/bin/env bash
# Runs ON THE GPU MACHINE, as it is (CUDA, CMake, a C++ compiler, maybe
# PyTorch and Triton; no LLVM/MLIR): a runtime-only build, every artifact of
# make-artifacts.sh through indexpool-launch --random-inputs --verify, the
# autotuner's candidates (indexpool-tune-measure, tuned vs cost model), then the
# compress / select benchmarks against a device-to-device copy of the same
# bytes, PyTorch eager and Triton, measured in this same run. Results go to
# $OUT (or ./gpu-results).
# Usage: bench/gpu/run-on-device.sh ARTIFACTS_DIR
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ARTS=${1:?usage: run-on-device.sh ARTIFACTS_DIR}
RESULTS=${OUT:-$PWD/gpu-results}
mkdir -p "$RESULTS"
BUILD=$RESULTS/build-runtime

echo "== runtime-only build"
cmake -S "$ROOT" -B "$BUILD" -DINDEXPOOL_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release >"$RESULTS/build.log" 2>&1 &&
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

echo "== verify every artifact for $art_chip on $chip"
pass=0; failed=0
for m in "$ARTS"/tests/$art_chip/*.json "$ARTS"/bench/$art_chip/*_1m.*.json; do
  # A dynamic artifact runs with the shapes its test uses (NAME.CHIP.shapes).
  shapes=$(cat "${m%.json}.shapes" 2>/dev/null || true)
  if "$LAUNCH" "$m" --random-inputs=1 $shapes --verify >"$RESULTS/verify-$(basename "$m" .json).txt" 2>&1; then
    pass=$((pass + 1))
  else
    failed=$((failed + 1)); echo "FAILED: $m"; tail -3 "$RESULTS/verify-$(basename "$m" .json).txt"
  fi
done
echo "verify: $pass passed, $failed failed" | tee "$RESULTS/verify-summary.txt"

echo "== autotuning (indexpool-tune-measure): every candidate verified, then timed"
MEASURE=$BUILD/bin/indexpool-tune-measure
for plan in "$ARTS"/tune/$art_chip/*/; do
  fn=$(basename "$plan")
  "$MEASURE" "$plan" --verify --repeat=20 --quiet --db="$RESULTS/tuning-db-$fn.json" \
    > "$RESULTS/tune-$fn.txt" 2>&1 || echo "tuning $fn failed"
  cp "$plan/measurements.json" "$RESULTS/tune-$fn-measurements.json" 2>/dev/null
  cat "$RESULTS/tune-$fn.txt"
  # Tuned vs the cost model (candidate 0 of every op), same run.
  python3 - "$plan/measurements.json" <<'PY' || true
import json, sys
m = json.load(open(sys.argv[1]))
rows = [c for c in m.get("candidates", []) if c.get("median_ms")]
model = [c["median_ms"] for c in rows if c.get("candidate") == 0]
best = min((c["median_ms"] for c in rows), default=None)
if model and best:
    print(f"tuned {best:.4f} ms vs cost model {model[0]:.4f} ms: {model[0] / best:.2f}x")
PY
done

echo "== benchmarks"
# --copy-anchor: a device-to-device copy of the same bytes, same run.
for b in compress_1m select_1m compress_2m select_2m compress_lean_1m select_1m_m64; do
  "$LAUNCH" "$ARTS/bench/$art_chip/$b.$art_chip.json" --random-inputs=1 --benchmark=20 \
    --copy-anchor --print-device | tee "$RESULTS/bench-$b.txt"
done
# The same selects with their scores on the CUDA cores (--tensor-cores=false).
for b in select_1m select_1m_m64; do
  "$LAUNCH" "$ARTS/bench-cuda-cores/$art_chip/$b.$art_chip.json" --random-inputs=1 \
    --verify > "$RESULTS/verify-cuda-cores-$b.txt" 2>&1 || echo "FAILED: CUDA-core $b"
  "$LAUNCH" "$ARTS/bench-cuda-cores/$art_chip/$b.$art_chip.json" --random-inputs=1 --benchmark=20 \
    --copy-anchor | tee "$RESULTS/bench-cuda-cores-$b.txt"
done
if python3 -c "import torch" 2>/dev/null; then
  for n in 1m 2m; do
    tokens=$([ $n = 1m ] && echo 1048576 || echo 2097152)
    python3 "$ROOT/bench/gpu/torch_triton.py" --tokens $tokens --json "$RESULTS/anchors_$n.json" \
      | tee "$RESULTS/anchors_$n.txt"
    python3 "$ROOT/bench/gpu/torch_triton_select.py" --pools $((tokens / 4)) --rows 1 \
      --json "$RESULTS/anchors_select_$n.json" | tee "$RESULTS/anchors_select_$n.txt"
  done
  python3 "$ROOT/bench/gpu/torch_triton_select.py" --pools 262144 --rows 64 \
    --json "$RESULTS/anchors_select_1m_m64.json" | tee "$RESULTS/anchors_select_1m_m64.txt"
else
  echo "no PyTorch: no eager / Triton anchors" | tee "$RESULTS/anchors.txt"
fi

echo "== ratios"
python3 - "$RESULTS" <<'PY'
import json, os, re, sys
res = sys.argv[1]
anchors = {"compress_1m": "anchors_1m.json", "compress_2m": "anchors_2m.json",
           "select_1m": "anchors_select_1m.json", "select_2m": "anchors_select_2m.json",
           "select_1m_m64": "anchors_select_1m_m64.json"}
for b in ("compress_1m", "select_1m", "compress_2m", "select_2m", "compress_lean_1m",
          "select_1m_m64"):
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
    print(line)
# Tensor cores (the default) against the CUDA-core score, same run.
for b in ("select_1m", "select_1m_m64"):
    times = []
    for name in (f"bench-{b}.txt", f"bench-cuda-cores-{b}.txt"):
        path = os.path.join(res, name)
        m = re.search(r"median_ms=([0-9.]+)", open(path).read()) if os.path.exists(path) else None
        times.append(float(m.group(1)) if m else None)
    if all(times):
        print(f"{b}: tensor cores {times[0]:.3f} ms, CUDA cores {times[1]:.3f} ms: "
              f"{times[1] / times[0]:.2f}x")
PY
