#!/usr/bin/env bash
# All the tests: set up and build, then every lit test, unit test and check
# through ctest. Fails when any test fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

echo "== testing"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)"
