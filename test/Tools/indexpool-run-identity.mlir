// indexpool-run on the CPU with functions that need no indexpool lowering:
// every element type through the JIT and the C interface (one result, several
// results, none, rank 0, dynamic sizes), --verify against the reference,
// .npy round trips and the --benchmark line.
//
// Random inputs, verified: one line per result, in the documented format.
// RUN: indexpool-run %s --function=all_types --random-inputs=7 --input-shape=1:5x3 --input-shape=3:2x9 --verify | FileCheck %s --check-prefix=VERIFY
// VERIFY: result #0 (tensor<4x8xf32>): max_abs_err=0 max_rel_err=0 normwise_rel_err=0 differing=0/32 (0%) -> ok
// VERIFY-NEXT: result #1 (tensor<5x3xbf16>): max_abs_err=0 max_rel_err=0 max_ulp_err=0 beyond_one_ulp=0 differing=0/15 (0%) -> ok
// VERIFY-NEXT: result #2 (tensor<5xf16>): max_abs_err=0 max_rel_err=0 max_ulp_err=0 beyond_one_ulp=0 differing=0/5 (0%) -> ok
// VERIFY-NEXT: result #3 (tensor<2x9xf8E4M3FN>): max_abs_err=0 max_rel_err=0 differing=0/18 (0%) off_by_one=0 beyond_one_code=0 -> ok
// VERIFY-NEXT: result #4 (tensor<7xi8>): max_abs_err=0 max_rel_err=0 differing=0/7 (0%) off_by_one=0 beyond_one_code=0 -> ok
// VERIFY-NEXT: result #5 (tensor<3x2xi32>): max_abs_err=0 max_rel_err=0 differing=0/6 (0%) near_tie_swaps=0 -> ok
// VERIFY-NEXT: result #6 (tensor<4x8xf32>): max_abs_err=0 max_rel_err=0 normwise_rel_err=0 differing=0/32 (0%) -> ok
// VERIFY-NOT: error

// Results written as .npy, read back as inputs, written again: identical
// files (bf16/f16/f8 go out as float32 and come back exactly).
// RUN: indexpool-run %s --function=all_types --random-inputs=11 --output=@%t.0.npy --output=@%t.1.npy --output=@%t.2.npy --output=@%t.3.npy --output=@%t.4.npy --output=@%t.5.npy --output=@%t.6.npy
// RUN: indexpool-run %s --function=all_types --input=@%t.0.npy --input=@%t.1.npy --input=@%t.2.npy --input=@%t.3.npy --input=@%t.4.npy --input=@%t.5.npy --verify --output=%t.r0.npy --output=%t.r1.npy --output=%t.r2.npy --output=%t.r3.npy --output=%t.r4.npy --output=%t.r5.npy --output=%t.r6.npy | FileCheck %s --check-prefix=ROUNDTRIP
// ROUNDTRIP-COUNT-7: -> ok
// RUN: cmp %t.0.npy %t.r0.npy
// RUN: cmp %t.1.npy %t.r1.npy
// RUN: cmp %t.2.npy %t.r2.npy
// RUN: cmp %t.3.npy %t.r3.npy
// RUN: cmp %t.4.npy %t.r4.npy
// RUN: cmp %t.5.npy %t.r5.npy
// RUN: cmp %t.0.npy %t.r6.npy
// The same seed draws the same inputs.
// RUN: indexpool-run %s --function=all_types --random-inputs=11 --output=@%t.a0.npy --output=@%t.a1.npy --output=@%t.a2.npy --output=@%t.a3.npy --output=@%t.a4.npy --output=@%t.a5.npy --output=@%t.a6.npy
// RUN: cmp %t.3.npy %t.a3.npy
// A float32 array feeds a bf16 argument, rounded to nearest even.
// RUN: indexpool-run %s --function=f32_4x8 --random-inputs=2 --output=@%t.f32.npy
// RUN: indexpool-run %s --function=bf16_4x8 --input=@%t.f32.npy --output=@%t.bf16.npy
// RUN: indexpool-run %s --function=bf16_4x8 --input=@%t.bf16.npy --output=@%t.bf16again.npy
// RUN: cmp %t.bf16.npy %t.bf16again.npy
// RUN: not cmp -s %t.f32.npy %t.bf16.npy

// Without --output, --verify or --benchmark the results are summarized.
// RUN: indexpool-run %s --function=f32_4x8 --random-inputs=2 | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: result #0 (tensor<4x8xf32>): {{[-0-9.e+]+}}, {{.*}}, ... (32 values)

// No results, rank 0, --benchmark.
// RUN: indexpool-run %s --function=no_results --random-inputs=1 --benchmark=3 | FileCheck %s --check-prefix=BENCH
// BENCH: median_ms={{[0-9]+\.[0-9]+}} effective_GBps={{[0-9]+\.[0-9]+}}
// RUN: indexpool-run %s --function=rank0 --random-inputs=1 --verify --benchmark=2 | FileCheck %s --check-prefix=RANK0
// RANK0: result #0 (tensor<f32>): max_abs_err=0 {{.*}} differing=0/1 (0%) -> ok
// RANK0-NEXT: median_ms=

// Dynamic sizes are 256 unless --input-shape gives them; an empty tensor works.
// RUN: indexpool-run %s --function=dynamic --random-inputs=4 --verify | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: result #0 (tensor<256x3xf32>): {{.*}} -> ok
// RUN: indexpool-run %s --function=dynamic --random-inputs=4 --input-shape=0:0x3 --verify | FileCheck %s --check-prefix=EMPTY
// EMPTY: result #0 (tensor<0x3xf32>): {{.*}} differing=0/0 (0%) -> ok

// --help documents every option.
// RUN: indexpool-run --help | FileCheck %s --check-prefix=HELP
// HELP: usage: indexpool-run
// HELP-DAG: --benchmark=N
// HELP-DAG: --chip=sm_XX
// HELP-DAG: --device=cpu|cuda|gpu-emulator
// HELP-DAG: --function=NAME
// HELP-DAG: --input=@FILE.npy
// HELP-DAG: --input-shape=I:AxBxC
// HELP-DAG: --output=@FILE.npy
// HELP-DAG: --random-inputs=SEED
// HELP-DAG: --vector-width=LANES
// HELP-DAG: --verify

func.func @all_types(%a: tensor<4x8xf32>, %b: tensor<?x3xbf16>, %c: tensor<5xf16>,
                     %d: tensor<2x?xf8E4M3FN>, %e: tensor<7xi8>, %f: tensor<3x2xi32>)
    -> (tensor<4x8xf32>, tensor<?x3xbf16>, tensor<5xf16>, tensor<2x?xf8E4M3FN>,
        tensor<7xi8>, tensor<3x2xi32>, tensor<4x8xf32>) {
  return %a, %b, %c, %d, %e, %f, %a
      : tensor<4x8xf32>, tensor<?x3xbf16>, tensor<5xf16>, tensor<2x?xf8E4M3FN>,
        tensor<7xi8>, tensor<3x2xi32>, tensor<4x8xf32>
}

func.func @f32_4x8(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

func.func @bf16_4x8(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  return %x : tensor<4x8xbf16>
}

func.func @no_results(%x: tensor<16xf32>) {
  return
}

func.func @rank0(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

func.func @dynamic(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  return %x : tensor<?x3xf32>
}
