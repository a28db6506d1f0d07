#!/usr/bin/env bash
# The main job on the bundled GLM-5.3-Flash-style indexer example: set up and
# build, verify and fuse the IR, compile it to PTX for a GPU (CHIP, default
# sm_90; ptxas -v report per kernel), compile it for the CPU and run it on
# generated inputs against the float64 reference, and print a short report.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

EXAMPLE=${1:-$ROOT/examples/glm5_indexer.mlir}
OPT=$BUILD_DIR/bin/indexpool-opt
RUN=$BUILD_DIR/bin/indexpool-run

echo "== $EXAMPLE: parse and verify"
"$OPT" "$EXAMPLE" --print-op-stats -o /dev/null 2>&1 | grep -E 'indexpool\.'

FUSED=$BUILD_DIR/$(basename "$EXAMPLE" .mlir).fused.mlir
echo "== fused with --indexpool-fuse into $FUSED"
"$OPT" "$EXAMPLE" --indexpool-fuse -o "$FUSED"
grep -oE 'indexpool\.[a-z]+' "$FUSED" | sort | uniq -c

CHIP=${CHIP:-sm_90}
KERNELS=$BUILD_DIR/glm5-kernels
echo "== compiled for $CHIP (PTX + manifests in $KERNELS)"
"$BUILD_DIR/bin/indexpool-compile" "$FUSED" --chip=$CHIP --emit=ptx -o "$KERNELS"
for ptx in "$KERNELS"/*.$CHIP.ptx; do
  python3 "$ROOT/test/ptxas_report.py" --arch=$CHIP "$ptx"
done

for fn in compress_cache select_tokens; do
  echo "== @$fn (fused) on the CPU (JIT), random inputs, checked against the float64 reference"
  "$RUN" "$FUSED" --function=$fn --random-inputs=1 --verify --benchmark=5
done

echo "== report"
# Cache footprint per token: bf16 keys (D = 128) vs pooled FP8 codes plus one
# f32 scale per pool of 4 tokens.
awk 'BEGIN { d = 128; p = 4;
  printf "bytes per token: %d (bf16 keys) -> %.2f (pooled FP8 + f32 scale), %.1fx smaller\n",
         2 * d, (d + 4) / p, 2 * d / ((d + 4) / p) }'
echo "every result above is within its tolerance of the float64 reference (-> ok)"
