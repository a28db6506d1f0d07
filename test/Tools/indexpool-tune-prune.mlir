// The cost model prunes a GPU plan: of every valid launch of each op,
// indexpool-tune keeps candidate 0 (the model's own choice) and the best
// others by the model's estimate, in its order, so a smaller
// --max-candidates keeps a prefix of a larger one. indexpool-tune-measure
// then measures within --prune and --time-budget (the fake driver: its
// times are not GPU times) and still writes a valid database.
//
// RUN: rm -rf %t.3 %t.6 && env INDEXPOOL_LIBCUDA_PATH=%t.no-driver.so indexpool-tune %s --function=cs --chip=sm_90 -o %t.3 --max-candidates=3 | FileCheck %s --check-prefix=PLAN
// PLAN: wrote {{.*}}plan.json: 6 candidates of 2 ops
// PLAN-NEXT: estimate (cost model, not a measurement): the candidates' kernels take {{[0-9.e+-]+}} s of sm_90 time for 21 runs each
// RUN: env INDEXPOOL_LIBCUDA_PATH=%t.no-driver.so indexpool-tune %s --function=cs --chip=sm_90 -o %t.6 --max-candidates=6 --time-budget=30 | FileCheck %s --check-prefix=SIX
// SIX: wrote {{.*}}plan.json: 12 candidates of 2 ops
// SIX: indexpool-tune-measure {{.*}} --repeat=20 --time-budget=30
// RUN: python3 %S/Inputs/check_ranking.py %t.3 %t.6 --resolution=0.05 --checks=%t.model-checks
// RUN: FileCheck %s --check-prefix=ESTIMATE < %t.6/plan.json
// ESTIMATE: "candidate": 0, "shape_class": "T=1024, G=256, D=64, P=4",
// ESTIMATE-NEXT: "launch": {{{.*}}}, "estimate_us": {{[0-9.e+]+}},
//
// Candidate 0 is what --indexpool-configure attaches without a database.
// RUN: indexpool-opt %s --indexpool-fuse --indexpool-configure=chip=sm_90 | FileCheck %t.model-checks
//
// At a benchmark's size the estimates differ: one pool per block starves
// an H100 of bytes in flight, so the model ranks it behind every launch
// near the best, which the enumeration order (each knob alone first)
// would not.
// RUN: rm -rf %t.big4 %t.big8 && env INDEXPOOL_LIBCUDA_PATH=%t.no-driver.so indexpool-tune %s --function=compress_1m --chip=sm_90 -o %t.big4 --max-candidates=4 --quiet
// RUN: env INDEXPOOL_LIBCUDA_PATH=%t.no-driver.so indexpool-tune %s --function=compress_1m --chip=sm_90 -o %t.big8 --quiet
// RUN: python3 %S/Inputs/check_ranking.py %t.big4 %t.big8 --resolution=0.05
// RUN: FileCheck %s --check-prefix=BIG --implicit-check-not='"items_per_block": 1,' < %t.big8/plan.json
// BIG-COUNT-8: "launch": {"threads_per_block":
//
// --prune=2: candidate 0 and the model's next best of each op are
// measured, the others listed as skipped.
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_ANY_KERNEL=1 indexpool-tune-measure %t.6 --repeat=2 --prune=2 --db=%t.prune.json 2> %t.prune.err | FileCheck %s --check-prefix=PRUNE
// PRUNE: note: 4 of 12 candidates measured, 8 pruned (--prune=2); the skipped candidates are listed as "skipped" in measurements.json, and the database holds the fastest of those measured
// PRUNE-NEXT: compress (op 0, T=1024, G=256, D=64, P=4): candidate {{[01]}}, {{.*}}; tuned vs cost model {{[0-9.]+}}x (candidate 0: {{.*}} ms)
// PRUNE-NEXT: select (op 1, {{.*}}): candidate {{[01]}}, {{.*}}; tuned vs cost model {{[0-9.]+}}x (candidate 0: {{.*}} ms)
// RUN: FileCheck %s --check-prefix=PRUNE-ERR < %t.prune.err
// PRUNE-ERR: 4 to measure; their kernels, 3 runs each, take {{[0-9.e+-]+}} s by the cost model's estimate
// RUN: python3 %S/Inputs/check_tune.py %t.6 %t.prune.json --candidates=12 --source=fake-cuda-driver --skipped=8 --prune=2
// RUN: FileCheck %s --check-prefix=SKIPPED < %t.6/measurements.json
// SKIPPED: "note": "4 of 12 candidates measured, 8 pruned (--prune=2);
// SKIPPED: "candidate": 2, {{.*}} "status": "skipped", "reason": "pruned: --prune=2 measures the first 2 candidates of each op in the cost model's order"
// SKIPPED-NEXT: "median_ms": null, "samples_ms": []
//
// A budget too small for anything but the model's choices: candidate 0 of
// each op is still measured (it always is), nothing else starts, and the
// database holds those two launches. No time is asserted: whatever the
// machine, 1 ms is spent before a second candidate could start.
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_ANY_KERNEL=1 indexpool-tune-measure %t.6 --repeat=2 --time-budget=0.001 --quiet --db=%t.budget.json | FileCheck %s --check-prefix=BUDGET
// BUDGET: note: 2 of 12 candidates measured, 10 not measured (time budget of 0.001 s spent); the run took {{.*}} s, over the budget, because candidate 0 of every op is always measured; the skipped
// BUDGET-NEXT: compress (op 0, {{.*}}): candidate 0, {{.*}}; tuned vs cost model 1.00x
// BUDGET-NEXT: select (op 1, {{.*}}): candidate 0, {{.*}}; tuned vs cost model 1.00x
// RUN: python3 %S/Inputs/check_tune.py %t.6 %t.budget.json --candidates=12 --source=fake-cuda-driver --skipped=10 --checks=%t.budget-checks
// RUN: indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%t.budget.json" | FileCheck %t.budget-checks
// RUN: FileCheck %s --check-prefix=BUDGET-JSON < %t.6/measurements.json
// BUDGET-JSON: "status": "skipped", "reason": "not measured: the time budget (--time-budget=0.001 s) was spent"

func.func @cs(%keys: tensor<1024x64xf32>, %scores: tensor<1024x64xf32>,
              %q: tensor<2x4x64xf32>, %w: tensor<2x4xf32>, %k: tensor<256x64xf32>)
    -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>, tensor<2x64xi32>) {
  %c, %s, %r = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<1024x64xf32>, tensor<1024x64xf32>)
        -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>)
  %t = indexpool.select %q, %w, %k {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<2x4x64xf32>, tensor<2x4xf32>, tensor<256x64xf32>) -> tensor<2x64xi32>
  return %c, %s, %r, %t : tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>, tensor<2x64xi32>
}

func.func @compress_1m(%keys: tensor<1048576x128xbf16>, %scores: tensor<1048576x128xf32>)
    -> (tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1048576x128xbf16>, tensor<1048576x128xf32>)
        -> (tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>)
  return %q, %s, %w : tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>
}
