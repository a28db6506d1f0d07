#!/usr/bin/env bash
# All the tests: set up and build, then every lit test, unit test and check
# through ctest, then the bounded fuzz runs, then the threaded tests under
# ThreadSanitizer. Fails when any test fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

echo "== testing"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)"

# Bounded fuzz runs after the tests (ASan + UBSan, a fixed seed and a fixed
# number of executions per target, so the result is the same on every
# machine; FUZZ=0 skips them): a crash, leak or hang fails the run.
if [ "${FUZZ:-1}" != 0 ]; then
  echo "== fuzzing"
  bash "$ROOT/scripts/fuzz.sh"
fi

# The tests that share state between threads under ThreadSanitizer
# (scripts/tsan.sh: the cache's background compressor and its Redis store,
# in a build of their own; TSAN_PYTHON=1 adds the Python threads test, which
# needs a TSan build of the compiler; TSAN=0 skips it): any report fails
# the run.
if [ "${TSAN:-1}" != 0 ]; then
  echo "== ThreadSanitizer"
  bash "$ROOT/scripts/tsan.sh"
fi
