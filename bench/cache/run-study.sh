#!/usr/bin/env bash
# The eviction study of docs/cache.md: the three generated traces at device
# budgets from 0.2% to 25% of their pages under LRU, LRU-2 and LRU-2 with a
# correlated-reference period of 512 references; a Markdown table on stdout
# and the plot (matplotlib from Debian's python3).
# Usage: bench/cache/run-study.sh [PLOT.png]   (default docs/cache-hit-rates.png)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIM=${BUILD_DIR:-$ROOT/build}/bin/indexpool-cache-sim
PLOT=${1:-$ROOT/docs/cache-hit-rates.png}
JSON=$(mktemp)
trap 'rm -f "$JSON"' EXIT
"$SIM" gen:tenants gen:requery gen:scan --policies=lru,lru-k,lru-k:2:512 \
  --budgets=0.002,0.005,0.01,0.02,0.05,0.1,0.25 --json="$JSON"
/usr/bin/python3 "$ROOT/bench/cache/plot_hit_rates.py" "$JSON" "$PLOT"
