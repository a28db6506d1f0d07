#!/usr/bin/env bash
# The call overhead of the embedding APIs on one small compress: C++ and C
# against the compiled code alone (indexpool-bench-api), then Python/NumPy
# and torch against the C++ call (bench/python/call_overhead.py). Each
# prints ratios to an anchor measured in the same run.
# Usage: bench/api/run.sh [BUILD_DIR=build] [TOKENS=1024] [DIM=128] [THREADS=1]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-$ROOT/build}
TOKENS=${2:-1024} DIM=${3:-128} THREADS=${4:-1}
"$BUILD/bin/indexpool-bench-api" "$TOKENS" "$DIM" "$THREADS"
PYTHONPATH="$BUILD/python" /usr/bin/python3 "$ROOT/bench/python/call_overhead.py" \
  --tokens "$TOKENS" --dim "$DIM" --threads "$THREADS"
