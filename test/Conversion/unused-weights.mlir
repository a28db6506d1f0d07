// Pooling weights nothing reads are neither computed into memory nor
// stored: with per-channel scores they would be a [G, P, D] f32 buffer,
// 512 bytes per token at D = 128, twice the bf16 keys. Weights that are
// returned are stored as before.
// RUN: indexpool-opt %s --indexpool-to-loops | FileCheck %s --check-prefix=LOOPS
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels=chip=sm_90 | FileCheck %s --check-prefix=KERNELS
// RUN: indexpool-compile %s --chip=sm_90 --function=unused -o %t
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/unused.sm_90.json
// RUN: indexpool-run %s --function=unused --random-inputs=3 --verify | FileCheck %s --check-prefix=OK
// RUN: indexpool-run %s --function=returned --random-inputs=3 --verify | FileCheck %s --check-prefix=OK
// RUN: indexpool-run %s --function=unused --random-inputs=4 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=OK

// LOOPS-LABEL: func.func @unused
// LOOPS-NOT: memref<64x4x128xf32>
// LOOPS: return
// LOOPS-LABEL: func.func @returned
// LOOPS: memref.alloc() {alignment = 64 : i64} : memref<64x4x128xf32>
// KERNELS-LABEL: func.func @unused
// KERNELS-NOT: memref<64x4x128xf32>
// KERNELS: return
// KERNELS-LABEL: func.func @returned
// KERNELS: memref.alloc() {alignment = 64 : i64} : memref<64x4x128xf32>
// MANIFEST-NOT: "temporary"
// MANIFEST: "launches"
// OK: result #0 {{.*}} -> ok
// OK: result #1 {{.*}} -> ok
// OK-NOT: FAILED

func.func @unused(%keys: tensor<256x128xbf16>, %scores: tensor<256x128xf32>)
    -> (tensor<64x128xf8E4M3FN>, tensor<64xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<256x128xbf16>, tensor<256x128xf32>)
        -> (tensor<64x128xf8E4M3FN>, tensor<64xf32>, tensor<64x4x128xf32>)
  return %q, %s : tensor<64x128xf8E4M3FN>, tensor<64xf32>
}

func.func @returned(%keys: tensor<256x128xbf16>, %scores: tensor<256x128xf32>)
    -> (tensor<64x128xf8E4M3FN>, tensor<64x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<256x128xbf16>, tensor<256x128xf32>)
        -> (tensor<64x128xf8E4M3FN>, tensor<64xf32>, tensor<64x4x128xf32>)
  return %q, %w : tensor<64x128xf8E4M3FN>, tensor<64x4x128xf32>
}
