// indexpool-tune --time-budget on the CPU, where candidates are measured
// for real: the budget stops the measurement, and what was measured is
// still written as a valid database. Candidate 0 of each op (vector width
// 8) is measured first and always, then the others round robin over the
// ops. No time is asserted: a budget of 1 ms is spent by the first
// compile on any machine, and one of 10^5 s by none.
//
// RUN: rm -rf %t && indexpool-tune %s --chip=cpu -o %t --repeat=2 --time-budget=0.001 2> %t.err | FileCheck %s
// CHECK: wrote {{.*}}plan.json: 8 candidates of 2 ops
// CHECK-NEXT: note: 2 of 8 candidates measured, 6 not measured (time budget of 0.001 s spent); the run took {{.*}} s, over the budget, because candidate 0 of every op is always measured; the skipped candidates are listed as "skipped" in measurements.json, and the database holds the fastest of those measured
// CHECK-NEXT: compress (op 0, T=1024, G=256, D=64, P=4): candidate 0, vector_width=8, median {{.*}} ms (CPU time); tuned vs cost model 1.00x
// CHECK-NEXT: select (op 1, M=2, H=4, N=256, D=64, K=16, P=4): candidate 0, vector_width=8, median {{.*}} ms (CPU time); tuned vs cost model 1.00x
// CHECK-NEXT: wrote {{.*}}measurements.json and {{.*}}tuning-db.json
// RUN: FileCheck %s --check-prefix=PROGRESS < %t.err
// PROGRESS: [#...........] 1/8  best {{.*}} ms (candidate 0, CPU time)
// PROGRESS-NEXT: [###.........] 2/8  best {{.*}} ms (candidate {{0|4}}, CPU time)
// PROGRESS-NOT: 3/8
// RUN: python3 %S/Inputs/check_tune.py %t %t/tuning-db.json --candidates=8 --source=cpu --skipped=6
// RUN: FileCheck %s --check-prefix=JSON < %t/measurements.json
// JSON: "note": "2 of 8 candidates measured, 6 not measured
// JSON: "candidate": 1, {{.*}} "status": "skipped", "reason": "not measured: the time budget (--time-budget=0.001 s) was spent"
// RUN: not ls %t/*.partial
// RUN: indexpool-run %s --function=cs --random-inputs=1 --tuning-db=%t/tuning-db.json --verify | FileCheck %s --check-prefix=VERIFY
// VERIFY-COUNT-4: -> ok
//
// A budget that lasts measures every candidate and says nothing.
// RUN: rm -rf %t.all && indexpool-tune %s --chip=cpu -o %t.all --repeat=2 --time-budget=100000 --quiet | FileCheck %s --check-prefix=ALL --implicit-check-not=note:
// ALL: wrote {{.*}}plan.json: 8 candidates of 2 ops
// RUN: python3 %S/Inputs/check_tune.py %t.all %t.all/tuning-db.json --candidates=8 --source=cpu

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
