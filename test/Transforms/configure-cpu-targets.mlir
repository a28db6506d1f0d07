// CPU tuning-database entries per CPU target (docs/tuning.md): an entry of
// "chip": "cpu:NAME" applies only when compiling for row NAME, before the
// entries of "chip": "cpu" (any row); indexpool-tune writes the former.
//
// RUN: indexpool-opt %s --indexpool-configure-cpu="tuning-db=%S/Inputs/tuning-db-cpu-rows.json cpu=x86-64-v3" \
// RUN:   | FileCheck %s --check-prefix=ROW
// RUN: indexpool-opt %s --indexpool-configure-cpu="tuning-db=%S/Inputs/tuning-db-cpu-rows.json cpu=znver5" \
// RUN:   | FileCheck %s --check-prefix=ANY
// RUN: indexpool-opt %s --indexpool-configure-cpu="tuning-db=%S/Inputs/tuning-db-cpu-rows.json" \
// RUN:   | FileCheck %s --check-prefix=ANY
// The JIT passes its row: the AVX2 row's entry, still matching the
// float64 reference.
// RUN: indexpool-run %s --function=tuned --random-inputs=1 --verify --cpu=x86-64-v3 \
// RUN:   --tuning-db=%S/Inputs/tuning-db-cpu-rows.json | FileCheck %s --check-prefix=JIT
//
// Errors: a row the table lacks, in an entry and in the option.
// RUN: not indexpool-opt %s --indexpool-configure-cpu=tuning-db=%S/Inputs/tuning-db-cpu-bad-row.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADROW
// RUN: not indexpool-opt %s --indexpool-configure-cpu="tuning-db=%S/Inputs/tuning-db-cpu-rows.json cpu=bogus" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADOPTION
//
// ROW: indexpool.compress {{.*}}indexpool.vector_width = 4 : i64
// ANY: indexpool.compress {{.*}}indexpool.vector_width = 16 : i64
// JIT-COUNT-3: -> ok
// BADROW: error: tuning-db '{{.*}}tuning-db-cpu-bad-row.json' entry 1: unknown CPU target 'bogus'; known: {{.*}}x86-64-v3
// BADROW-NOT: error
// BADOPTION: error: --indexpool-configure-cpu: unknown CPU target 'bogus'; known:

func.func @tuned(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>)
  return %q, %s, %w : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>
}
