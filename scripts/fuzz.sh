#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) in ${FUZZ_BUILD_DIR:-build-fuzz} with
# clang-22, ASan and UBSan, replays the saved crashers (test/Fuzz/Inputs),
# then runs each target from its seed corpus with a fixed seed:
#
#   scripts/fuzz.sh            a fixed number of executions per target (the
#                              CI run: about 20 s each here; the same seed and
#                              count give the same inputs on every machine, so
#                              a CI result does not depend on the machine's
#                              speed and a finding reproduces with this command)
#   scripts/fuzz.sh SECONDS    each target for SECONDS (exploring; new inputs
#                              each time the machine's speed changes)
#   FUZZ_TARGETS="npy-reader ir-parser" scripts/fuzz.sh 600
#
# Prints, per target, the executions, executions per second and whether it
# found anything; exits non-zero if any target crashed, leaked, timed out
# (-timeout=10 per input, 60 for differential's GPU-emulator runs) or ran out of memory (-rss_limit_mb=4096). What a
# target found is saved under $FUZZ_BUILD_DIR/findings/<target>/ (minimize
# with `fuzz-X -minimize_crash=1 -runs=10000 FILE`, then keep it under
# test/Fuzz/Inputs/<target>/).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_PER_TARGET=${1:-}
FUZZ_BUILD_DIR=${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}
ALL_TARGETS=(npy-reader manifest-reader trace-reader snapshot-reader tuning-db-reader ir-parser differential)
read -r -a TARGETS <<<"${FUZZ_TARGETS:-${ALL_TARGETS[*]}}"
if [ -n "$SECONDS_PER_TARGET" ] && ! [[ $SECONDS_PER_TARGET =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: error: SECONDS_PER_TARGET must be a positive integer, got" \
       "'$SECONDS_PER_TARGET'" >&2
  exit 1
fi

# libFuzzer and the sanitizer runtimes of clang-22.
PACKAGES=(cmake ninja-build clang-22 lld-22 libclang-rt-22-dev llvm-22-dev
          libmlir-22-dev mlir-22-tools libomp-22-dev libxxhash-dev libcli11-dev)
source "$ROOT/scripts/install-packages.sh"
install_missing "${PACKAGES[@]}"

echo "== building the fuzz targets in $FUZZ_BUILD_DIR"
cmake -G Ninja -S "$ROOT" -B "$FUZZ_BUILD_DIR" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DINDEXPOOL_FUZZ=ON >/dev/null
# Only the targets and the libraries they link, not the tools and tests.
cmake --build "$FUZZ_BUILD_DIR" --target indexpool-fuzzers

# allow_user_poisoning=0: see test/lit.cfg.py (LLVM's allocator poisons
# slabs that the unsanitized libMLIR.so then uses).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# libomp keeps its worker threads' descriptors until exit (see the file).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/test/lsan.supp}
export KMP_BLOCKTIME=0

status=0
printf '%-18s %12s %10s %s\n' target executions execs/s result
for target in "${TARGETS[@]}"; do
  binary="$FUZZ_BUILD_DIR/bin/fuzz-$target"
  name=${target//-/_}
  dict="$ROOT/fuzz/dict/$(case $target in
    npy-reader) echo npy ;;
    trace-reader) echo trace ;;
    snapshot-reader) echo snapshot ;;
    manifest-reader|tuning-db-reader) echo json ;;
    *) echo ir ;;
  esac).dict"
  work="$FUZZ_BUILD_DIR/fuzz-work/$target"
  findings="$FUZZ_BUILD_DIR/findings/$target"
  log="$FUZZ_BUILD_DIR/fuzz-$target.log"
  rm -rf "$work"
  mkdir -p "$work" "$findings"

  # The saved crashers first: each must run clean now.
  regressions="$ROOT/test/Fuzz/Inputs/$name"
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    if ! "$binary" -runs=1 "$regressions"/* >"$log.replay" 2>&1; then
      printf '%-18s %12s %10s %s\n' "$target" - - \
        "FAILED replaying test/Fuzz/Inputs/$name (see $log.replay)"
      status=1
      continue
    fi
  fi

  # New inputs go to $work; the seed corpus in git is only read.
  if [ -n "$SECONDS_PER_TARGET" ]; then
    budget=-max_total_time=$SECONDS_PER_TARGET
  else
    # About 20 s of each target on a 2-core CI machine.
    budget=-runs=$(case $target in
      npy-reader) echo 400000 ;;
      trace-reader) echo 300000 ;;
      snapshot-reader) echo 20000 ;;
      manifest-reader) echo 200000 ;;
      tuning-db-reader) echo 1500 ;;
      ir-parser) echo 500000 ;;
      differential) echo 40 ;;
    esac)
  fi
  rc=0
  # differential runs some functions through the GPU emulator (one OS thread
  # per GPU thread) under ASan: a small refine took 12-29 s on 2 cores, so
  # 10 s flagged a slow unit, not a hang; 60 s still catches a hang.
  per_input_timeout() { [ "$1" = differential ] && echo 60 || echo 10; }
  "$binary" "$work" "$ROOT/fuzz/corpus/$name" \
    -dict="$dict" -seed=1 "$budget" \
    -timeout="$(per_input_timeout "$target")" -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$findings/" >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  if [ -z "$runs" ]; then
    runs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$log" | tail -1)
  fi
  rate=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  if [ "$rc" -eq 0 ]; then
    result="nothing found"
  else
    status=1
    what=$(grep -m1 -oE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer): [a-z-]+|runtime error:.*|FUZZ FINDING:.*|==[0-9]+== ERROR: libFuzzer: [a-z-]+' "$log" || true)
    result="FOUND (${what:-exit code $rc}); input in $findings, log $log"
  fi
  printf '%-18s %12s %10s %s\n' "$target" "${runs:-?}" "${rate:-?}" "$result"
done
exit $status
