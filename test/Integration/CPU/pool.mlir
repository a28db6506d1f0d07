// indexpool.pool on the CPU against the float64 reference, on random inputs:
// bf16 / f16 / f32 keys, per-token and per-channel scores, with and without
// bias, temperature, T not a multiple of P, static and dynamic shapes.
// RUN: indexpool-run %s --function=bf16_token_tail --random-inputs=1 --verify | FileCheck %s --check-prefix=TOKEN
// RUN: indexpool-run %s --function=f16_channel_bias --random-inputs=2 --verify | FileCheck %s --check-prefix=CHANNEL
// RUN: indexpool-run %s --function=f32_pool8 --random-inputs=3 --verify | FileCheck %s --check-prefix=F32
// RUN: indexpool-run %s --function=dynamic --random-inputs=4 --input-shape=0:1030x100 --input-shape=1:1030x100 --input-shape=2:4x100 --verify | FileCheck %s --check-prefix=DYN
// RUN: indexpool-run %s --function=dynamic_token --random-inputs=5 --input-shape=0:77x24 --input-shape=1:77 --verify | FileCheck %s --check-prefix=DYNTOKEN

// TOKEN: result #0 (tensor<256x128xbf16>): {{.*}} max_ulp_err={{.*}} -> ok
// TOKEN-NEXT: result #1 (tensor<256x4xf32>): {{.*}} normwise_rel_err={{.*}} -> ok
func.func @bf16_token_tail(%keys: tensor<1027x128xbf16>, %scores: tensor<1027xf32>)
    -> (tensor<256x128xbf16>, tensor<256x4xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1027x128xbf16>, tensor<1027xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  return %p, %w : tensor<256x128xbf16>, tensor<256x4xf32>
}

// CHANNEL: result #0 (tensor<128x64xf32>): {{.*}} normwise_rel_err={{.*}} -> ok
// CHANNEL-NEXT: result #1 (tensor<128x4x64xf32>): {{.*}} -> ok
func.func @f16_channel_bias(%keys: tensor<512x64xf16>, %scores: tensor<512x64xf16>, %bias: tensor<4x64xf16>)
    -> (tensor<128x64xf32>, tensor<128x4x64xf32>) {
  %p, %w = indexpool.pool %keys, %scores bias(%bias) {pool_size = 4 : i64, temperature = 2.0 : f32}
      : (tensor<512x64xf16>, tensor<512x64xf16>, tensor<4x64xf16>) -> (tensor<128x64xf32>, tensor<128x4x64xf32>)
  return %p, %w : tensor<128x64xf32>, tensor<128x4x64xf32>
}

// F32: result #0 (tensor<64x32xf32>): {{.*}} -> ok
// F32-NEXT: result #1 (tensor<64x8x32xf32>): {{.*}} -> ok
func.func @f32_pool8(%keys: tensor<515x32xf32>, %scores: tensor<515x32xbf16>)
    -> (tensor<64x32xf32>, tensor<64x8x32xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 8 : i64, temperature = 0.5 : f32}
      : (tensor<515x32xf32>, tensor<515x32xbf16>) -> (tensor<64x32xf32>, tensor<64x8x32xf32>)
  return %p, %w : tensor<64x32xf32>, tensor<64x8x32xf32>
}

// D = 100: vector main loop plus a masked tail of 4 lanes.
// DYN: result #0 (tensor<257x100xbf16>): {{.*}} -> ok
// DYN-NEXT: result #1 (tensor<257x4x100xf32>): {{.*}} -> ok
func.func @dynamic(%keys: tensor<?x?xbf16>, %scores: tensor<?x?xf32>, %bias: tensor<4x?xf32>)
    -> (tensor<?x?xbf16>, tensor<?x4x?xf32>) {
  %p, %w = indexpool.pool %keys, %scores bias(%bias) {pool_size = 4 : i64}
      : (tensor<?x?xbf16>, tensor<?x?xf32>, tensor<4x?xf32>) -> (tensor<?x?xbf16>, tensor<?x4x?xf32>)
  return %p, %w : tensor<?x?xbf16>, tensor<?x4x?xf32>
}

// DYNTOKEN: result #0 (tensor<38x24xf16>): {{.*}} -> ok
// DYNTOKEN-NEXT: result #1 (tensor<38x2xf32>): {{.*}} -> ok
func.func @dynamic_token(%keys: tensor<?x?xf16>, %scores: tensor<?xf32>)
    -> (tensor<?x?xf16>, tensor<?x2xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 2 : i64}
      : (tensor<?x?xf16>, tensor<?xf32>) -> (tensor<?x?xf16>, tensor<?x2xf32>)
  return %p, %w : tensor<?x?xf16>, tensor<?x2xf32>
}
