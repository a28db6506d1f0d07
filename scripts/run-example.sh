#!/usr/bin/env bash
# The main job on the bundled GLM-5.3-Flash-style indexer example: set up,
# build, then parse, verify and print it, with a short report.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

EXAMPLE=${1:-$ROOT/examples/glm5_indexer.mlir}
OPT=$BUILD_DIR/bin/indexpool-opt

echo "== $EXAMPLE: parsed, verified and printed by indexpool-opt"
"$OPT" "$EXAMPLE"

echo "== report"
"$OPT" "$EXAMPLE" --print-op-stats -o /dev/null 2>&1 | grep -E 'indexpool\.|func\.func'
# Cache footprint per token: bf16 keys (D = 128) vs pooled FP8 codes plus one
# f32 scale per pool of 4 tokens.
awk 'BEGIN { d = 128; p = 4;
  printf "bytes per token: %d (bf16 keys) -> %.2f (pooled FP8 + scale), %.1fx smaller\n",
         2 * d, (d + 4) / p, 2 * d / ((d + 4) / p) }'
echo "verified: OK"
