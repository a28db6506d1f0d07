// indexpool.compress on the CPU against the float64 reference: the GLM-5.3
// kpool configuration and its variations (per-token scores, i8, no rotation,
// f16 / f32 keys, T not a multiple of P, dynamic shapes).
// RUN: indexpool-run %s --function=kpool --random-inputs=1 --verify | FileCheck %s --check-prefix=KPOOL
// RUN: indexpool-run %s --function=token_i8 --random-inputs=2 --verify | FileCheck %s --check-prefix=I8
// RUN: indexpool-run %s --function=f32_dynamic --random-inputs=3 --input-shape=0:1001x64 --input-shape=1:1001x64 --verify | FileCheck %s --check-prefix=DYN
// RUN: indexpool-run %s --function=dynamic_d --random-inputs=4 --input-shape=0:130x100 --input-shape=1:130 --verify | FileCheck %s --check-prefix=DYND

// KPOOL: result #0 (tensor<1024x128xf8E4M3FN>): {{.*}} -> ok
// KPOOL-NEXT: result #1 (tensor<1024xf32>): {{.*}} -> ok
// KPOOL-NEXT: result #2 (tensor<1024x4x128xf32>): {{.*}} -> ok
func.func @kpool(%keys: tensor<4099x128xbf16>, %scores: tensor<4099x128xf32>, %b: tensor<4x128xf32>)
    -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<4099x128xbf16>, tensor<4099x128xf32>, tensor<4x128xf32>)
        -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>)
  return %q, %s, %w : tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>
}

// I8: result #0 (tensor<512x64xi8>): {{.*}} -> ok
// I8-NEXT: result #1 (tensor<512xf32>): {{.*}} -> ok
// I8-NEXT: result #2 (tensor<512x4xf32>): {{.*}} -> ok
func.func @token_i8(%keys: tensor<2048x64xf16>, %scores: tensor<2048xf16>, %b: tensor<4xf32>)
    -> (tensor<512x64xi8>, tensor<512xf32>, tensor<512x4xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, temperature = 0.7 : f32}
      : (tensor<2048x64xf16>, tensor<2048xf16>, tensor<4xf32>)
        -> (tensor<512x64xi8>, tensor<512xf32>, tensor<512x4xf32>)
  return %q, %s, %w : tensor<512x64xi8>, tensor<512xf32>, tensor<512x4xf32>
}

// DYN: result #0 (tensor<125x64xf8E4M3FN>): {{.*}} -> ok
// DYN-NEXT: result #1 (tensor<125xf32>): {{.*}} -> ok
// DYN-NEXT: result #2 (tensor<125x8x64xf32>): {{.*}} -> ok
func.func @f32_dynamic(%keys: tensor<?x?xf32>, %scores: tensor<?x?xf32>)
    -> (tensor<?x?xf8E4M3FN>, tensor<?xf32>, tensor<?x8x?xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 8 : i64, rotate, min_absmax = 0.01 : f32}
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?xf32>, tensor<?x8x?xf32>)
  return %q, %s, %w : tensor<?x?xf8E4M3FN>, tensor<?xf32>, tensor<?x8x?xf32>
}

// D = 100 is no power of two: no rotation, a masked tail in every loop.
// DYND: result #0 (tensor<32x100xi8>): {{.*}} -> ok
// DYND-NEXT: result #1 (tensor<32xf32>): {{.*}} -> ok
// DYND-NEXT: result #2 (tensor<32x4xf32>): {{.*}} -> ok
func.func @dynamic_d(%keys: tensor<?x?xbf16>, %scores: tensor<?xf32>)
    -> (tensor<?x?xi8>, tensor<?xf32>, tensor<?x4xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, pow2_scale}
      : (tensor<?x?xbf16>, tensor<?xf32>) -> (tensor<?x?xi8>, tensor<?xf32>, tensor<?x4xf32>)
  return %q, %s, %w : tensor<?x?xi8>, tensor<?xf32>, tensor<?x4xf32>
}
