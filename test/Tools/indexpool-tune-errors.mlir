// Bad input of indexpool-tune and indexpool-tune-measure: one error line
// each and a non-zero exit.
//
// RUN: not indexpool-tune %s --chip=sm_42 -o %t.x 2>&1 | FileCheck %s --check-prefix=CHIP --implicit-check-not=error
// CHIP: indexpool-tune: error: unknown chip 'sm_42'; known chips: cpu, sm_80,
// RUN: not indexpool-tune %s --chip=cpu --function=nope -o %t.x 2>&1 | FileCheck %s --check-prefix=FUNCTION --implicit-check-not=error
// FUNCTION: indexpool-tune: error: unknown function '@nope' in {{.*}}indexpool-tune-errors.mlir (functions: @compress)
// RUN: not indexpool-tune %s --chip=cpu --max-candidates=0 -o %t.x 2>&1 | FileCheck %s --check-prefix=MAX --implicit-check-not=error
// MAX: indexpool-tune: error: --max-candidates=0: expected a number of candidates per op, at least 1 (candidate 0 is the cost model's choice)
// RUN: not indexpool-tune %s --chip=cpu --max-candidates=-3 -o %t.x 2>&1 | FileCheck %s --check-prefix=MAXNEG --implicit-check-not=error
// MAXNEG: indexpool-tune: error: --max-candidates=-3: expected a number of candidates per op, at least 1
// RUN: not indexpool-tune %s --chip=cpu --max-candidates=many -o %t.x 2>&1 | FileCheck %s --check-prefix=MAXTEXT --implicit-check-not=error
// MAXTEXT: indexpool-tune: error: --max-candidates=many: expected a number of candidates per op, at least 1
// RUN: not indexpool-tune %s --chip=cpu --time-budget=0 -o %t.x 2>&1 | FileCheck %s --check-prefix=BUDGET0 --implicit-check-not=error
// BUDGET0: indexpool-tune: error: --time-budget=0: expected a number of seconds > 0
// RUN: not indexpool-tune %s --chip=cpu --time-budget=-5 -o %t.x 2>&1 | FileCheck %s --check-prefix=BUDGETNEG --implicit-check-not=error
// BUDGETNEG: indexpool-tune: error: --time-budget=-5: expected a number of seconds > 0
// RUN: not indexpool-tune %s --chip=cpu --time-budget=1m -o %t.x 2>&1 | FileCheck %s --check-prefix=BUDGETTEXT --implicit-check-not=error
// BUDGETTEXT: indexpool-tune: error: --time-budget=1m: expected a number of seconds > 0
// RUN: not indexpool-tune %s --chip=cpu --time-budget=inf -o %t.x 2>&1 | FileCheck %s --check-prefix=BUDGETINF --implicit-check-not=error
// BUDGETINF: indexpool-tune: error: --time-budget=inf: expected a number of seconds > 0
// RUN: not indexpool-tune %s --chip=cpu --time-budget -o %t.x 2>&1 | FileCheck %s --check-prefix=BUDGETNONE --implicit-check-not=error
// BUDGETNONE: indexpool-tune: error: --time-budget needs a value
// RUN: not indexpool-tune %s --chip=cpu 2>&1 | FileCheck %s --check-prefix=NODIR --implicit-check-not=error
// NODIR: indexpool-tune: error: -o DIR is required
// RUN: not indexpool-tune %s --chip=cpu -o %t.x --repeat=0 2>&1 | FileCheck %s --check-prefix=REPEAT --implicit-check-not=error
// REPEAT: indexpool-tune: error: --repeat=0: expected a number of runs from 1 to 100000
//
// A corrupt plan.json, and one that names a missing artifact.
// RUN: rm -rf %t && mkdir -p %t && echo '{"function": "compress",' > %t/plan.json
// RUN: not indexpool-tune-measure %t 2>&1 | FileCheck %s --check-prefix=CORRUPT --implicit-check-not=error
// CORRUPT: indexpool-tune-measure: error: {{.*}}plan.json: invalid JSON: 2:1:
// RUN: echo '{"function": "f", "chip": "sm_90", "inputs": [], "candidates": [{"id": 0}]}' > %t/plan.json
// RUN: not indexpool-tune-measure %t 2>&1 | FileCheck %s --check-prefix=FIELD --implicit-check-not=error
// FIELD: indexpool-tune-measure: error: {{.*}}plan.json: 1:{{[0-9]+}}: missing "op_index"
// RUN: not indexpool-tune-measure %t.missing-dir 2>&1 | FileCheck %s --check-prefix=NOPLAN --implicit-check-not=error
// NOPLAN: indexpool-tune-measure: error: {{.*}}plan.json: cannot open
// RUN: rm -rf %t.gpu && env INDEXPOOL_LIBCUDA_PATH=%t.no-driver.so indexpool-tune %s --chip=sm_90 -o %t.gpu --max-candidates=1
// RUN: rm %t.gpu/candidates/op0-0/compress.sm_90.ptx
// RUN: not indexpool-tune-measure %t.gpu 2>&1 | FileCheck %s --check-prefix=MISSING --implicit-check-not=error
// MISSING: indexpool-tune-measure: error: {{.*}}plan.json: candidate 0 names candidates/op0-0/compress.sm_90.ptx, which is missing from {{.*}}
// RUN: not indexpool-tune-measure %t.gpu --repeat=x 2>&1 | FileCheck %s --check-prefix=MREPEAT --implicit-check-not=error
// MREPEAT: indexpool-tune-measure: error: --repeat=x: expected a number of runs from 1 to 100000
// RUN: not indexpool-tune-measure %t.gpu --prune=0 2>&1 | FileCheck %s --check-prefix=PRUNE0 --implicit-check-not=error
// PRUNE0: indexpool-tune-measure: error: --prune=0: expected a number of candidates per op, at least 1 (candidate 0 is the cost model's choice)
// RUN: not indexpool-tune-measure %t.gpu --prune=-1 2>&1 | FileCheck %s --check-prefix=PRUNENEG --implicit-check-not=error
// PRUNENEG: indexpool-tune-measure: error: --prune=-1: expected a number of candidates per op, at least 1
// RUN: not indexpool-tune-measure %t.gpu --prune=two 2>&1 | FileCheck %s --check-prefix=PRUNETEXT --implicit-check-not=error
// PRUNETEXT: indexpool-tune-measure: error: --prune=two: expected a number of candidates per op, at least 1
// RUN: not indexpool-tune-measure %t.gpu --time-budget=0 2>&1 | FileCheck %s --check-prefix=MBUDGET0 --implicit-check-not=error
// MBUDGET0: indexpool-tune-measure: error: --time-budget=0: expected a number of seconds > 0
// RUN: not indexpool-tune-measure %t.gpu --time-budget=-60 2>&1 | FileCheck %s --check-prefix=MBUDGETNEG --implicit-check-not=error
// MBUDGETNEG: indexpool-tune-measure: error: --time-budget=-60: expected a number of seconds > 0
// RUN: not indexpool-tune-measure %t.gpu --time-budget=nan 2>&1 | FileCheck %s --check-prefix=MBUDGETNAN --implicit-check-not=error
// MBUDGETNAN: indexpool-tune-measure: error: --time-budget=nan: expected a number of seconds > 0
// RUN: not indexpool-tune-measure %t.gpu --time-budget= 2>&1 | FileCheck %s --check-prefix=MBUDGETNONE --implicit-check-not=error
// MBUDGETNONE: indexpool-tune-measure: error: --time-budget needs a value (--time-budget=SECONDS)
//
// Both tools document every flag.
// RUN: indexpool-tune --help | FileCheck %s --check-prefix=HELP
// HELP-DAG: --chip=CHIP
// HELP-DAG: -o DIR
// HELP-DAG: --function=NAME
// HELP-DAG: --max-candidates=N
// HELP-DAG: --time-budget=SECONDS
// HELP-DAG: --repeat=N
// HELP-DAG: --db=FILE
// HELP-DAG: --device=N
// HELP-DAG: --verify
// HELP-DAG: --plot
// HELP-DAG: --quiet
// RUN: indexpool-tune-measure --help | FileCheck %s --check-prefix=MHELP
// MHELP-DAG: --device=N
// MHELP-DAG: --repeat=N
// MHELP-DAG: --verify
// MHELP-DAG: --db=FILE
// MHELP-DAG: --prune=N
// MHELP-DAG: --time-budget=SECONDS
// MHELP-DAG: --quiet

func.func @compress(%keys: tensor<1024x64xf32>, %scores: tensor<1024x64xf32>)
    -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<1024x64xf32>, tensor<1024x64xf32>)
        -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>)
  return %q, %s, %w : tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>
}
