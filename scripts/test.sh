#!/usr/bin/env bash
# All the tests: set up and build, then every lit test, unit test and check
# through ctest, then the bounded fuzz runs. Fails when any test fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

echo "== testing"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)"

# Bounded fuzz runs (ASan + UBSan, fixed seed, FUZZ_SECONDS per target; 0
# skips them), after the tests: a crash, leak or hang fails the run.
if [ "${FUZZ_SECONDS:-30}" != 0 ]; then
  echo "== fuzzing"
  bash "$ROOT/scripts/fuzz.sh" "${FUZZ_SECONDS:-30}"
fi
