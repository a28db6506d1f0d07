// RUN: indexpool-opt %s -split-input-file --indexpool-fuse | FileCheck %s
// The fused IR verifies, prints in generic form and parses back to the same:
// RUN: indexpool-opt %s -split-input-file --indexpool-fuse --verify-each --mlir-print-op-generic \
// RUN:   | indexpool-opt -split-input-file --verify-roundtrip | FileCheck %s

//===----------------------------------------------------------------------===//
// pool -> [hadamard] -> quantize => compress
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @compress_per_token_f8
// CHECK-SAME: (%[[KEYS:.*]]: tensor<1024x128xbf16>, %[[SCORES:.*]]: tensor<1024xf32>)
// CHECK-NOT: indexpool.pool
// CHECK: %[[Q:.*]], %[[S:.*]], %{{.*}} = indexpool.compress %[[KEYS]], %[[SCORES]] {pool_size = 4 : i64, pow2_scale} : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>)
// CHECK-NOT: indexpool.quantize
// CHECK: return %[[Q]], %[[S]]
func.func @compress_per_token_f8(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  %q, %s = indexpool.quantize %pooled {pow2_scale}
      : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  return %q, %s : tensor<256x128xf8E4M3FN>, tensor<256xf32>
}

// -----

// GLM-5.3-Flash's kpool: per-channel scores, a per-slot bias, Hadamard, FP8
// with power-of-two scales; the temperature is carried over.
// CHECK-LABEL: func.func @compress_kpool
// CHECK-SAME: (%[[KEYS:.*]]: tensor<1024x128xbf16>, %[[SCORES:.*]]: tensor<1024x128xf32>, %[[APE:.*]]: tensor<4x128xf32>)
// CHECK: %[[Q:.*]], %[[S:.*]], %[[W:.*]] = indexpool.compress %[[KEYS]], %[[SCORES]] bias(%[[APE]]) {pool_size = 4 : i64, pow2_scale, rotate, temperature = 2.000000e+00 : f32} : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>)
// CHECK-NOT: indexpool.pool
// CHECK-NOT: indexpool.hadamard
// CHECK-NOT: indexpool.quantize
// CHECK: return %[[Q]], %[[S]], %[[W]]
func.func @compress_kpool(%keys: tensor<1024x128xbf16>, %scores: tensor<1024x128xf32>,
                          %ape: tensor<4x128xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores bias(%ape) {pool_size = 4 : i64, temperature = 2.0 : f32}
      : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>)
        -> (tensor<256x128xbf16>, tensor<256x4x128xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  %q, %s = indexpool.quantize %rot {pow2_scale}
      : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  return %q, %s, %w : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>
}

// -----

// INT8 with min_absmax, f16 keys, a per-token bias and an incomplete tail.
// CHECK-LABEL: func.func @compress_i8_min_absmax
// CHECK: indexpool.compress %{{.*}}, %{{.*}} bias(%{{.*}}) {min_absmax = 1.000000e-03 : f32, pool_size = 8 : i64, rotate} : (tensor<1027x64xf16>, tensor<1027xf16>, tensor<8xf16>) -> (tensor<128x64xi8>, tensor<128xf32>, tensor<128x8xf32>)
// CHECK-NOT: indexpool.pool
// CHECK-NOT: indexpool.hadamard
// CHECK-NOT: indexpool.quantize
func.func @compress_i8_min_absmax(%keys: tensor<1027x64xf16>, %scores: tensor<1027xf16>, %b: tensor<8xf16>)
    -> (tensor<128x64xi8>, tensor<128xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores bias(%b) {pool_size = 8 : i64}
      : (tensor<1027x64xf16>, tensor<1027xf16>, tensor<8xf16>) -> (tensor<128x64xf16>, tensor<128x8xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<128x64xf16>) -> tensor<128x64xf16>
  %q, %s = indexpool.quantize %rot {min_absmax = 1.0e-3 : f32}
      : (tensor<128x64xf16>) -> (tensor<128x64xi8>, tensor<128xf32>)
  return %q, %s : tensor<128x64xi8>, tensor<128xf32>
}

// -----

// f32 keys pooled to f32: the rounding is the keys' type, so this fuses too.
// CHECK-LABEL: func.func @compress_f32_keys
// CHECK: indexpool.compress %{{.*}}, %{{.*}} {pool_size = 2 : i64} : (tensor<64x32xf32>, tensor<64xf32>) -> (tensor<32x32xi8>, tensor<32xf32>, tensor<32x2xf32>)
// CHECK-NOT: indexpool.pool
// CHECK-NOT: indexpool.quantize
func.func @compress_f32_keys(%keys: tensor<64x32xf32>, %scores: tensor<64xf32>)
    -> (tensor<32x32xi8>, tensor<32xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 2 : i64}
      : (tensor<64x32xf32>, tensor<64xf32>) -> (tensor<32x32xf32>, tensor<32x2xf32>)
  %q, %s = indexpool.quantize %pooled : (tensor<32x32xf32>) -> (tensor<32x32xi8>, tensor<32xf32>)
  return %q, %s : tensor<32x32xi8>, tensor<32xf32>
}

// -----

// The weights are used between the pool and the quantize: compress takes the
// place of the pool, so that it dominates that use.
// CHECK-LABEL: func.func @compress_weights_used
// CHECK: %[[Q:.*]], %[[S:.*]], %[[W:.*]] = indexpool.compress %{{.*}}, %{{.*}} {pool_size = 4 : i64, rotate}
// CHECK-NEXT: call @sink(%[[W]])
// CHECK-NOT: indexpool.pool
// CHECK-NOT: indexpool.quantize
// CHECK: return %[[Q]], %[[S]], %[[W]]
func.func private @sink(tensor<256x4xf32>)
func.func @compress_weights_used(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xbf16>)
    -> (tensor<256x128xi8>, tensor<256xf32>, tensor<256x4xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xbf16>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  func.call @sink(%w) : (tensor<256x4xf32>) -> ()
  %rot = indexpool.hadamard %pooled : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  %q, %s = indexpool.quantize %rot : (tensor<256x128xbf16>) -> (tensor<256x128xi8>, tensor<256xf32>)
  return %q, %s, %w : tensor<256x128xi8>, tensor<256xf32>, tensor<256x4xf32>
}

// -----

// CHECK-LABEL: func.func @compress_dynamic
// CHECK: indexpool.compress %{{.*}}, %{{.*}} {pool_size = 4 : i64, rotate} : (tensor<?x?xf32>, tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?xf32>, tensor<?x4x?xf32>)
// CHECK-NOT: indexpool.pool
// CHECK-NOT: indexpool.hadamard
// CHECK-NOT: indexpool.quantize
func.func @compress_dynamic(%keys: tensor<?x?xf32>, %scores: tensor<?x?xbf16>)
    -> (tensor<?x?xf8E4M3FN>, tensor<?xf32>, tensor<?x4x?xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<?x?xf32>, tensor<?x?xbf16>) -> (tensor<?x?xf32>, tensor<?x4x?xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %q, %s = indexpool.quantize %rot : (tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?xf32>)
  return %q, %s, %w : tensor<?x?xf8E4M3FN>, tensor<?xf32>, tensor<?x4x?xf32>
}

// -----

// Dynamic intermediates between static ends that agree: the result types are
// those of the chain's ends.
// CHECK-LABEL: func.func @compress_dynamic_intermediates
// CHECK: indexpool.compress %{{.*}}, %{{.*}} {pool_size = 4 : i64, rotate} : (tensor<1024x128xbf16>, tensor<?xf32>) -> (tensor<256x128xi8>, tensor<?xf32>, tensor<?x4xf32>)
// CHECK-NOT: indexpool.pool
// CHECK-NOT: indexpool.hadamard
// CHECK-NOT: indexpool.quantize
func.func @compress_dynamic_intermediates(%keys: tensor<1024x128xbf16>, %scores: tensor<?xf32>)
    -> (tensor<256x128xi8>, tensor<?xf32>, tensor<?x4xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<?xf32>) -> (tensor<?x?xbf16>, tensor<?x4xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %q, %s = indexpool.quantize %rot : (tensor<?x?xbf16>) -> (tensor<256x128xi8>, tensor<?xf32>)
  return %q, %s, %w : tensor<256x128xi8>, tensor<?xf32>, tensor<?x4xf32>
}

// -----

// Not fused: the pooled keys are also returned.
// CHECK-LABEL: func.func @no_compress_pooled_used
// CHECK-NOT: indexpool.compress
// CHECK: indexpool.pool
// CHECK: indexpool.quantize
func.func @no_compress_pooled_used(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x128xbf16>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  %q, %s = indexpool.quantize %pooled : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  return %q, %s, %pooled : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x128xbf16>
}

// -----

// Not fused: the pooled keys stay f32 where compress rounds them to bf16.
// CHECK-LABEL: func.func @no_compress_pooled_f32
// CHECK-NOT: indexpool.compress
// CHECK: indexpool.pool
// CHECK-SAME: -> (tensor<256x128xf32>, tensor<256x4xf32>)
// CHECK: indexpool.quantize
func.func @no_compress_pooled_f32(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xf32>, tensor<256x4xf32>)
  %q, %s = indexpool.quantize %pooled : (tensor<256x128xf32>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  return %q, %s : tensor<256x128xf8E4M3FN>, tensor<256xf32>
}

// -----

// Not fused: the rotated keys stay f32 where compress rounds them to bf16.
// CHECK-LABEL: func.func @no_compress_rotated_f32
// CHECK-NOT: indexpool.compress
// CHECK: indexpool.pool
// CHECK: indexpool.hadamard
// CHECK-SAME: -> tensor<256x128xf32>
// CHECK: indexpool.quantize
func.func @no_compress_rotated_f32(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<256x128xbf16>) -> tensor<256x128xf32>
  %q, %s = indexpool.quantize %rot {pow2_scale}
      : (tensor<256x128xf32>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  return %q, %s : tensor<256x128xf8E4M3FN>, tensor<256xf32>
}

// -----

// Not fused: the rotated keys are also returned.
// CHECK-LABEL: func.func @no_compress_rotated_used
// CHECK-NOT: indexpool.compress
// CHECK: indexpool.pool
// CHECK: indexpool.hadamard
// CHECK: indexpool.quantize
func.func @no_compress_rotated_used(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x128xbf16>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  %q, %s = indexpool.quantize %rot : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  return %q, %s, %rot : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x128xbf16>
}

// -----

// Not fused: what is quantized is the pooling weights, not the pooled keys
// (both are 64x4 f32 here).
// CHECK-LABEL: func.func @no_compress_weights_quantized
// CHECK-NOT: indexpool.compress
// CHECK: indexpool.pool
// CHECK: indexpool.quantize
func.func @no_compress_weights_quantized(%keys: tensor<256x4xf32>, %scores: tensor<256xf32>)
    -> (tensor<64x4xf32>, tensor<64x4xi8>, tensor<64xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<256x4xf32>, tensor<256xf32>) -> (tensor<64x4xf32>, tensor<64x4xf32>)
  %q, %s = indexpool.quantize %w : (tensor<64x4xf32>) -> (tensor<64x4xi8>, tensor<64xf32>)
  return %pooled, %q, %s : tensor<64x4xf32>, tensor<64x4xi8>, tensor<64xf32>
}

// -----

// Not fused: each op verifies, but the dynamic pooled keys hide that 1024
// keys make 256 groups, not the 300 rows of codes; the runtime reports it.
// CHECK-LABEL: func.func @no_compress_hidden_mismatch
// CHECK-NOT: indexpool.compress
// CHECK: indexpool.pool
// CHECK: indexpool.quantize
func.func @no_compress_hidden_mismatch(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<300x128xi8>, tensor<300xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<?x128xbf16>, tensor<256x4xf32>)
  %q, %s = indexpool.quantize %pooled : (tensor<?x128xbf16>) -> (tensor<300x128xi8>, tensor<300xf32>)
  return %q, %s : tensor<300x128xi8>, tensor<300xf32>
}

// -----

// Not fused: the dynamic pooled keys hide that the codes have 64 columns
// where the keys have D = 128.
// CHECK-LABEL: func.func @no_compress_hidden_dim_mismatch
// CHECK-NOT: indexpool.compress
// CHECK: indexpool.pool
// CHECK: indexpool.quantize
func.func @no_compress_hidden_dim_mismatch(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x64xi8>, tensor<256xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x?xbf16>, tensor<256x4xf32>)
  %q, %s = indexpool.quantize %pooled : (tensor<256x?xbf16>) -> (tensor<256x64xi8>, tensor<256xf32>)
  return %q, %s : tensor<256x64xi8>, tensor<256xf32>
}

// -----

// Not fused: D = 96 cannot be rotated; the dynamic pooled keys hide it from
// the hadamard verifier, not from compress's.
// CHECK-LABEL: func.func @no_compress_hidden_hadamard_dim
// CHECK-NOT: indexpool.compress
// CHECK: indexpool.pool
// CHECK: indexpool.hadamard
// CHECK: indexpool.quantize
func.func @no_compress_hidden_hadamard_dim(%keys: tensor<1024x96xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<?x?xi8>, tensor<?xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x96xbf16>, tensor<1024xf32>) -> (tensor<?x?xbf16>, tensor<256x4xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %q, %s = indexpool.quantize %rot : (tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?xf32>)
  return %q, %s : tensor<?x?xi8>, tensor<?xf32>
}

// -----

// Not fused: the quantize runs only on one branch.
// CHECK-LABEL: func.func @no_compress_across_regions
// CHECK-NOT: indexpool.compress
// CHECK: indexpool.pool
// CHECK: scf.if
// CHECK: indexpool.quantize
func.func @no_compress_across_regions(%c: i1, %keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>,
                                      %q0: tensor<256x128xi8>) -> tensor<256x128xi8> {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  %r = scf.if %c -> tensor<256x128xi8> {
    %q, %s = indexpool.quantize %pooled : (tensor<256x128xbf16>) -> (tensor<256x128xi8>, tensor<256xf32>)
    scf.yield %q : tensor<256x128xi8>
  } else {
    scf.yield %q0 : tensor<256x128xi8>
  }
  return %r : tensor<256x128xi8>
}

//===----------------------------------------------------------------------===//
// score -> topk -> expand => select
//===----------------------------------------------------------------------===//

// -----

// The valid lengths are defined after the score: select takes the place of
// the expand.
// CHECK-LABEL: func.func @select_scales_valid
// CHECK-SAME: (%[[Q:.*]]: tensor<1x64x128xbf16>, %[[W:.*]]: tensor<1x64xf32>, %[[K:.*]]: tensor<4096x128xf8E4M3FN>, %[[S:.*]]: tensor<4096xf32>)
// CHECK: %[[LEN:.*]] = call @lengths()
// CHECK-NEXT: %[[TOK:.*]] = indexpool.select %[[Q]], %[[W]], %[[K]] scales(%[[S]]) valid(%[[LEN]]) {k = 512 : i64, pool_size = 4 : i64} : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>, tensor<1xi32>) -> tensor<1x2048xi32>
// CHECK-NOT: indexpool.score
// CHECK-NOT: indexpool.topk
// CHECK-NOT: indexpool.expand
// CHECK: return %[[TOK]]
func.func private @lengths() -> tensor<1xi32>
func.func @select_scales_valid(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                               %keys: tensor<4096x128xf8E4M3FN>, %s: tensor<4096xf32>)
    -> tensor<1x2048xi32> {
  %logits = indexpool.score %q, %w, %keys scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>)
        -> tensor<1x4096xf32>
  %len = func.call @lengths() : () -> tensor<1xi32>
  %vals, %idx = indexpool.topk %logits valid(%len) {k = 512 : i64}
      : (tensor<1x4096xf32>, tensor<1xi32>) -> (tensor<1x512xf32>, tensor<1x512xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<1x512xi32>) -> tensor<1x2048xi32>
  return %tok : tensor<1x2048xi32>
}

// -----

// CHECK-LABEL: func.func @select_plain
// CHECK: indexpool.select %{{.*}}, %{{.*}}, %{{.*}} {k = 64 : i64, pool_size = 8 : i64} : (tensor<4x32x128xf32>, tensor<4x32xf32>, tensor<1024x128xbf16>) -> tensor<4x512xi32>
// CHECK-NOT: indexpool.score
// CHECK-NOT: indexpool.topk
// CHECK-NOT: indexpool.expand
func.func @select_plain(%q: tensor<4x32x128xf32>, %w: tensor<4x32xf32>, %keys: tensor<1024x128xbf16>)
    -> tensor<4x512xi32> {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<4x32x128xf32>, tensor<4x32xf32>, tensor<1024x128xbf16>) -> tensor<4x1024xf32>
  %vals, %idx = indexpool.topk %logits {k = 64 : i64}
      : (tensor<4x1024xf32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
  %tok = indexpool.expand %idx {pool_size = 8 : i64} : (tensor<4x64xi32>) -> tensor<4x512xi32>
  return %tok : tensor<4x512xi32>
}

// -----

// CHECK-LABEL: func.func @select_dynamic
// CHECK: indexpool.select %{{.*}}, %{{.*}}, %{{.*}} scales(%{{.*}}) valid(%{{.*}}) {k = 2048 : i64, pool_size = 4 : i64} : (tensor<?x?x?xf8E4M3FN>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xf32>, tensor<?xi32>) -> tensor<?x?xi32>
// CHECK-NOT: indexpool.score
// CHECK-NOT: indexpool.topk
// CHECK-NOT: indexpool.expand
func.func @select_dynamic(%q: tensor<?x?x?xf8E4M3FN>, %w: tensor<?x?xf32>, %keys: tensor<?x?xi8>,
                          %s: tensor<?xf32>, %len: tensor<?xi32>) -> tensor<?x?xi32> {
  %logits = indexpool.score %q, %w, %keys scales(%s)
      : (tensor<?x?x?xf8E4M3FN>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x?xf32>
  %vals, %idx = indexpool.topk %logits valid(%len) {k = 2048 : i64}
      : (tensor<?x?xf32>, tensor<?xi32>) -> (tensor<?x2048xf32>, tensor<?x?xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<?x?xi32>) -> tensor<?x?xi32>
  return %tok : tensor<?x?xi32>
}

// -----

// Not fused: the top-k logits are returned, select drops them.
// CHECK-LABEL: func.func @no_select_values_used
// CHECK-NOT: indexpool.select
// CHECK: indexpool.score
// CHECK: indexpool.topk
// CHECK: indexpool.expand
func.func @no_select_values_used(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<1024x128xbf16>)
    -> (tensor<1x256xi32>, tensor<1x64xf32>) {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1024x128xbf16>) -> tensor<1x1024xf32>
  %vals, %idx = indexpool.topk %logits {k = 64 : i64}
      : (tensor<1x1024xf32>) -> (tensor<1x64xf32>, tensor<1x64xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<1x64xi32>) -> tensor<1x256xi32>
  return %tok, %vals : tensor<1x256xi32>, tensor<1x64xf32>
}

// -----

// Not fused: the logits are returned too.
// CHECK-LABEL: func.func @no_select_logits_used
// CHECK-NOT: indexpool.select
// CHECK: indexpool.score
// CHECK: indexpool.topk
// CHECK: indexpool.expand
func.func @no_select_logits_used(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<1024x128xbf16>)
    -> (tensor<1x256xi32>, tensor<1x1024xf32>) {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1024x128xbf16>) -> tensor<1x1024xf32>
  %vals, %idx = indexpool.topk %logits {k = 64 : i64}
      : (tensor<1x1024xf32>) -> (tensor<1x64xf32>, tensor<1x64xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<1x64xi32>) -> tensor<1x256xi32>
  return %tok, %logits : tensor<1x256xi32>, tensor<1x1024xf32>
}

// -----

// Not fused: the pool indices are returned too.
// CHECK-LABEL: func.func @no_select_indices_used
// CHECK-NOT: indexpool.select
// CHECK: indexpool.score
// CHECK: indexpool.topk
// CHECK: indexpool.expand
func.func @no_select_indices_used(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<1024x128xbf16>)
    -> (tensor<1x256xi32>, tensor<1x64xi32>) {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1024x128xbf16>) -> tensor<1x1024xf32>
  %vals, %idx = indexpool.topk %logits {k = 64 : i64}
      : (tensor<1x1024xf32>) -> (tensor<1x64xf32>, tensor<1x64xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<1x64xi32>) -> tensor<1x256xi32>
  return %tok, %idx : tensor<1x256xi32>, tensor<1x64xi32>
}

// -----

// Not fused: each op verifies, but the dynamic logits hide that k = 16
// exceeds the N = 8 keys; the runtime reports it.
// CHECK-LABEL: func.func @no_select_hidden_mismatch
// CHECK-NOT: indexpool.select
// CHECK: indexpool.score
// CHECK: indexpool.topk
// CHECK: indexpool.expand
func.func @no_select_hidden_mismatch(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<8x128xbf16>)
    -> tensor<1x64xi32> {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<8x128xbf16>) -> tensor<?x?xf32>
  %vals, %idx = indexpool.topk %logits {k = 16 : i64}
      : (tensor<?x?xf32>) -> (tensor<?x16xf32>, tensor<?x16xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<?x16xi32>) -> tensor<1x64xi32>
  return %tok : tensor<1x64xi32>
}

// -----

// Not fused: the dynamic indices hide that 100 tokens are not k * P = 64.
// CHECK-LABEL: func.func @no_select_hidden_tokens_mismatch
// CHECK-NOT: indexpool.select
// CHECK: indexpool.score
// CHECK: indexpool.topk
// CHECK: indexpool.expand
func.func @no_select_hidden_tokens_mismatch(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                                            %keys: tensor<1024x128xbf16>) -> tensor<1x100xi32> {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1024x128xbf16>) -> tensor<1x1024xf32>
  %vals, %idx = indexpool.topk %logits {k = 16 : i64}
      : (tensor<1x1024xf32>) -> (tensor<1x16xf32>, tensor<1x?xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<1x?xi32>) -> tensor<1x100xi32>
  return %tok : tensor<1x100xi32>
}

// -----

// Not fused: the dynamic logits hide that valid has 2 rows for M = 1 query.
// CHECK-LABEL: func.func @no_select_hidden_valid_mismatch
// CHECK-NOT: indexpool.select
// CHECK: indexpool.score
// CHECK: indexpool.topk
// CHECK: indexpool.expand
func.func @no_select_hidden_valid_mismatch(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                                           %keys: tensor<1024x128xbf16>, %len: tensor<2xi32>)
    -> tensor<?x64xi32> {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1024x128xbf16>) -> tensor<?x1024xf32>
  %vals, %idx = indexpool.topk %logits valid(%len) {k = 16 : i64}
      : (tensor<?x1024xf32>, tensor<2xi32>) -> (tensor<?x16xf32>, tensor<?x16xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<?x16xi32>) -> tensor<?x64xi32>
  return %tok : tensor<?x64xi32>
}

// -----

// Not fused: the dynamic logits hide that the tokens have 2 rows for M = 1.
// CHECK-LABEL: func.func @no_select_hidden_rows_mismatch
// CHECK-NOT: indexpool.select
// CHECK: indexpool.score
// CHECK: indexpool.topk
// CHECK: indexpool.expand
func.func @no_select_hidden_rows_mismatch(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                                          %keys: tensor<1024x128xbf16>) -> tensor<2x64xi32> {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1024x128xbf16>) -> tensor<?x1024xf32>
  %vals, %idx = indexpool.topk %logits {k = 16 : i64}
      : (tensor<?x1024xf32>) -> (tensor<?x16xf32>, tensor<?x16xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<?x16xi32>) -> tensor<2x64xi32>
  return %tok : tensor<2x64xi32>
}
