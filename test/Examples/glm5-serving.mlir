// The serving example (examples/glm5_serving.mlir) at a small size, every
// step checked: a prefill of 2050 tokens (a tail of 2), then 8 decode steps
// of append + select. @serve's final pages and all its steps' tokens match
// the float64 reference; the checks scripts/run-example.sh uses for the
// full-size run (@build's pages, @steps' selections over @serve's pages,
// then serving_inputs.py check) pass on every step, and fail when one token
// of one step is corrupted or @steps' report is not ok for every step.
// The decode loop is a plain scf.for (no bufferization workarounds), and
// 8000 steps of @build run (each iteration frees its stack scratch) and
// match the reference.
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %indexpool_src/examples/serving_inputs.py make %t 2050 8 1
// RUN: indexpool-run %indexpool_src/examples/glm5_serving.mlir --function=serve --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/pages.npy --input=@%t/slots.npy --input=@%t/table.npy --input=@%t/tail_keys.npy --input=@%t/tail_scores.npy --input=@%t/lengths.npy --input=@%t/new_keys.npy --input=@%t/new_scores.npy --input=@%t/queries.npy --input=@%t/head_weights.npy --output=@%t/serve_pages.npy --output=@%t/serve_tokens.npy --verify | FileCheck %s --check-prefix=SERVE
// RUN: indexpool-run %indexpool_src/examples/glm5_serving.mlir --function=build --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/pages.npy --input=@%t/slots.npy --input=@%t/table.npy --input=@%t/tail_keys.npy --input=@%t/tail_scores.npy --input=@%t/lengths.npy --input=@%t/new_keys.npy --input=@%t/new_scores.npy --output=@%t/build_pages.npy --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %indexpool_src/examples/glm5_serving.mlir --function=steps --input=@%t/check_queries.npy --input=@%t/check_weights.npy --input=@%t/serve_pages.npy --input=@%t/check_table.npy --input=@%t/check_lengths.npy --output=@%t/steps_tokens.npy --verify > %t/steps.txt
// RUN: FileCheck %s --check-prefix=ONE < %t/steps.txt
// RUN: python3 %indexpool_src/examples/serving_inputs.py check %t 1 %t/steps.txt | FileCheck %s --check-prefix=CHECK-SCRIPT
// RUN: cp %t/serve_tokens.npy %t/serve_tokens.good
// RUN: python3 %indexpool_src/examples/serving_inputs.py flip %t 5
// RUN: not python3 %indexpool_src/examples/serving_inputs.py check %t 1 %t/steps.txt 2>&1 | FileCheck %s --check-prefix=FLIPPED
// RUN: cp %t/serve_tokens.good %t/serve_tokens.npy
// RUN: sed 's/-> ok$/-> FAILED: row 5/' %t/steps.txt > %t/failed.txt
// RUN: not python3 %indexpool_src/examples/serving_inputs.py check %t 1 %t/failed.txt 2>&1 | FileCheck %s --check-prefix=NOT-OK
// RUN: sed 's/tensor<8x/tensor<4x/' %t/steps.txt > %t/fewer.txt
// RUN: not python3 %indexpool_src/examples/serving_inputs.py check %t 1 %t/fewer.txt 2>&1 | FileCheck %s --check-prefix=FEWER
// RUN: indexpool-run %indexpool_src/examples/glm5_serving.mlir --function=prefill --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/pages.npy --input=@%t/slots.npy --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-opt %indexpool_src/examples/glm5_serving.mlir --verify-roundtrip | FileCheck %s
// RUN: not grep -E 'execute_region|materialize_in_destination' %indexpool_src/examples/glm5_serving.mlir
// RUN: mkdir -p %t/long && python3 %indexpool_src/examples/serving_inputs.py make %t/long 64 8000 4000
// RUN: indexpool-run %indexpool_src/examples/glm5_serving.mlir --function=build --input=@%t/long/keys.npy --input=@%t/long/scores.npy --input=@%t/long/pages.npy --input=@%t/long/slots.npy --input=@%t/long/table.npy --input=@%t/long/tail_keys.npy --input=@%t/long/tail_scores.npy --input=@%t/long/lengths.npy --input=@%t/long/new_keys.npy --input=@%t/long/new_scores.npy --verify | FileCheck %s --check-prefix=LONG

// SERVE: result #0 (tensor<9x8448xi8>): {{.*}} -> ok
// SERVE: result #1 (tensor<8x1x1x2051xi32>): {{.*}} differing=0/16408 {{.*}} -> ok
// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED
// CHECK-SCRIPT: pages of @serve identical to @build's: 76032 bytes
// CHECK-SCRIPT: cache: 9 pages of 8448 bytes, 132 bytes per pooled entry of 4 tokens: 33.00 bytes per token
// CHECK-SCRIPT: tokens of 8 of 8 steps identical to @steps' selection
// CHECK-SCRIPT: 8 of 8 decode steps matched the float64 reference (near_tie_swaps={{[0-9]+}})
// FLIPPED: step 5: the tokens of @serve differ from @steps'
// NOT-OK: failed.txt: no @steps result within tolerance of the float64 reference
// LONG: result #0 (tensor<32x8448xi8>): {{.*}} -> ok
// FEWER: fewer.txt: @steps verified 4 rows, expected 8

// CHECK-LABEL: func.func @serve
// CHECK: indexpool.compress_paged
// CHECK: scf.for
// CHECK: indexpool.append_paged
// CHECK: indexpool.select_paged {{.*}} {k = 512 : i64, pool_size = 4 : i64}
// CHECK-LABEL: func.func @build
// CHECK-LABEL: func.func @steps
// CHECK-LABEL: func.func @prefill
