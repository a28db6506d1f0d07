#!/usr/bin/env bash
# The main job on the bundled GLM-5.3-Flash-style indexer example: set up and
# build, verify and fuse the IR, compile it to PTX for a GPU (CHIP, default
# sm_90; ptxas -v report per kernel), compile it for the CPU and run it on
# generated inputs against the float64 reference, and print a short report.
# Then the paged serving layout (examples/glm5_serving.mlir): one sequence of
# SERVING_TOKENS (65536) prefilled into pages, SERVING_STEPS (256) decode
# steps of append + select on the CPU, every step checked against the
# reference, with the cache's bytes per token and the time of one step.
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

SERVING=$ROOT/examples/glm5_serving.mlir
DATA=$BUILD_DIR/glm5-serving
TOKENS=${SERVING_TOKENS:-65536}
STEPS=${SERVING_STEPS:-256}
# Every step's selection is checked against the float64 reference (~30 ms a
# step at 64K tokens; SERVING_CHECK_EVERY=N checks every N-th), and all the
# pages. --verify accepts near-tie swaps in select_paged's top k: two pools
# whose reference scores are within f32's 1e-5 of each other, listed in the
# other order (10 of this run's 256 steps hold one, each 1 or 2 f32 ulps
# apart or equal).
EVERY=${SERVING_CHECK_EVERY:-1}
# The generator is plain Python 3; the system's when there is one.
PYTHON=python3
[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3
echo "== paged serving layout: $SERVING"
echo "   prefill of $TOKENS tokens, then $STEPS decode steps of append_paged +" \
     "select_paged (one token, one query row, H = 64, k = 512 each)"
"$PYTHON" "$ROOT/examples/serving_inputs.py" make "$DATA" "$TOKENS" "$STEPS" "$EVERY"
inputs() { for n; do printf -- ' --input=@%s/%s.npy' "$DATA" "$n"; done; }
PREFILL_ARGS=$(inputs keys scores pages slots)
BUILD_ARGS=$(inputs keys scores pages slots table tail_keys tail_scores lengths \
             new_keys new_scores)
echo "-- @serve on the CPU (JIT): the final pages and every step's tokens"
"$RUN" "$SERVING" --function=serve $BUILD_ARGS $(inputs queries head_weights) \
  --output=@"$DATA"/serve_pages.npy --output=@"$DATA"/serve_tokens.npy \
  --benchmark=5 | tee "$DATA"/serve.txt
echo "-- @prefill alone (compress_paged of the $TOKENS tokens)"
"$RUN" "$SERVING" --function=prefill $PREFILL_ARGS --benchmark=5 \
  | tee "$DATA"/prefill.txt
echo "-- @build (@serve's prefill and appends) against the float64 reference"
"$RUN" "$SERVING" --function=build $BUILD_ARGS --verify \
  --output=@"$DATA"/build_pages.npy
echo "-- @steps: the selections of steps 0, $EVERY, $((2 * EVERY)), ... over" \
     "@serve's pages, against the float64 reference"
"$RUN" "$SERVING" --function=steps $(inputs check_queries check_weights) \
  --input=@"$DATA"/serve_pages.npy $(inputs check_table check_lengths) \
  --verify --output=@"$DATA"/steps_tokens.npy | tee "$DATA"/steps.txt
"$PYTHON" "$ROOT/examples/serving_inputs.py" check "$DATA" "$EVERY" \
  "$DATA"/steps.txt | tee "$DATA"/check.txt

echo "== report"
# Cache footprint per token, from the shape of the pages the run wrote
# (pooled FP8 codes plus one f32 scale per pool, vs bf16 keys).
sed -n 's/^cache: /paged cache: /p' "$DATA"/check.txt
# How many decode steps the checks covered, as the checker counted them.
sed -n 's/^\([0-9]* of [0-9]* decode steps matched\)/serving: \1/p' \
  "$DATA"/check.txt
median() { sed -n 's/^median_ms=\([0-9.]*\).*/\1/p' "$1"; }
awk -v serve="$(median "$DATA"/serve.txt)" -v prefill="$(median "$DATA"/prefill.txt)" \
    -v steps="$STEPS" -v tokens="$TOKENS" 'BEGIN {
  printf "serving on the CPU: prefill of %d tokens %.1f ms, one decode step" \
         " (append + select) %.2f ms (%d steps in %.1f ms)\n",
         tokens, prefill, (serve - prefill) / steps, steps, serve - prefill }'
echo "every result above is within its tolerance of the float64 reference (-> ok)"
