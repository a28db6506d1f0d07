// indexpool-tune on the CPU, end to end: four vector widths of one
// compress (8, the default, is candidate 0), each compiled with its own
// one-entry tuning database and timed in process; the database written
// holds the measured minimum, which check_tune.py verifies from the files
// alone; indexpool-run then uses that database and still matches the
// float64 reference.
//
// RUN: rm -rf %t && indexpool-tune %s --chip=cpu -o %t --repeat=3 2>%t.err | FileCheck %s
// CHECK: wrote {{.*}}plan.json: 4 candidates of 1 op
// CHECK-NEXT: compress (op 0, T=1024, G=256, D=64, P=4): candidate {{[0-3]}}, vector_width={{4|8|16|32}}, median {{[0-9.e+-]+}} ms (CPU time)
// CHECK-NEXT: wrote {{.*}}measurements.json and {{.*}}tuning-db.json
//
// Progress without a terminal: a line per tenth of the work, the times
// labelled as CPU times.
// RUN: FileCheck %s --check-prefix=PROGRESS < %t.err
// PROGRESS: indexpool-tune: 4 candidates of @compress; times: CPU time
// PROGRESS-NEXT: [###.........] 1/4  best {{.*}} ms (candidate 0, CPU time)
// PROGRESS: [############] 4/4  best {{.*}} ms (candidate {{[0-3]}}, CPU time)
//
// RUN: FileCheck %s --check-prefix=PLAN < %t/plan.json
// PLAN: "chip": "cpu:{{[a-z0-9-]+}}",
// PLAN: "inputs": {{\[\[}}1024, 64], [1024, 64]],
// PLAN: "candidate": 0, "shape_class": "T=1024, G=256, D=64, P=4",
// PLAN-NEXT: "launch": {"vector_width": 8},
// PLAN-NEXT: "tuning_db": "candidates/op0-0/tuning-db.json"
// PLAN: "launch": {"vector_width": 4},
// PLAN: "launch": {"vector_width": 16},
// PLAN: "launch": {"vector_width": 32},
//
// RUN: python3 %S/Inputs/check_tune.py %t %t/tuning-db.json --candidates=4 --source=cpu
// RUN: indexpool-run %s --function=compress --random-inputs=1 --tuning-db=%t/tuning-db.json --verify | FileCheck %s --check-prefix=VERIFY
// VERIFY-COUNT-3: -> ok
//
// --max-candidates keeps the first widths, and --quiet silences the bar.
// RUN: rm -rf %t.two && indexpool-tune %s --chip=cpu -o %t.two --repeat=2 --max-candidates=2 --quiet --db=%t.two.json 2>&1 | FileCheck %s --check-prefix=TWO --implicit-check-not='['
// TWO: wrote {{.*}}plan.json: 2 candidates of 1 op
// RUN: python3 %S/Inputs/check_tune.py %t.two %t.two.json --candidates=2 --source=cpu
//
// The entries name the CPU target measured on: the host's row by default,
// or a row named with cpu:NAME that this host runs (the AVX2 row here);
// one it cannot run, or an unknown one, is refused before anything runs.
// RUN: FileCheck %s --check-prefix=HOSTROW < %t.two.json
// HOSTROW: "chip": "cpu:{{[a-z0-9-]+}}"
// RUN: rm -rf %t.v3 && indexpool-tune %s --chip=cpu:x86-64-v3 -o %t.v3 --repeat=2 --max-candidates=2 --quiet --db=%t.v3.json
// RUN: FileCheck %s --check-prefix=V3 < %t.v3.json
// V3: "chip": "cpu:x86-64-v3"
// RUN: python3 %S/Inputs/check_tune.py %t.v3 %t.v3.json --candidates=2 --source=cpu
// RUN: not indexpool-tune %s --chip=cpu:bogus -o %t.bad 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS: indexpool-tune: error: unknown CPU target 'bogus'; known:
// RUN: not indexpool-tune %s --chip=cpu:neoverse-v2 -o %t.bad 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: indexpool-tune: error: {{.*}}neoverse-v2

func.func @compress(%keys: tensor<1024x64xf32>, %scores: tensor<1024x64xf32>)
    -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<1024x64xf32>, tensor<1024x64xf32>)
        -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>)
  return %q, %s, %w : tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>
}
