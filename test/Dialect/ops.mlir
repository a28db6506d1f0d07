// Every example of the op reference (docs/IndexPoolOps.md), with static and dynamic shapes, printed,
// re-parsed and printed again; then the same through the generic form.
// RUN: indexpool-opt %s --verify-roundtrip | indexpool-opt | FileCheck %s
// RUN: indexpool-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: indexpool-opt %s --mlir-print-op-generic | indexpool-opt | FileCheck %s

// CHECK-LABEL: func.func @pool_per_token
// CHECK: indexpool.pool %{{.*}}, %{{.*}} {pool_size = 4 : i64} : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
// GENERIC-LABEL: sym_name = "pool_per_token"
// GENERIC: "indexpool.pool"(%{{.*}}, %{{.*}}) <{pool_size = 4 : i64, temperature = 1.000000e+00 : f32}>
func.func @pool_per_token(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x128xbf16>, tensor<256x4xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  return %pooled, %w : tensor<256x128xbf16>, tensor<256x4xf32>
}

// CHECK-LABEL: func.func @pool_per_channel_bias
// CHECK: indexpool.pool %{{.*}}, %{{.*}} bias(%{{.*}}) {pool_size = 4 : i64, temperature = 2.000000e+00 : f32} : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>) -> (tensor<256x128xbf16>, tensor<256x4x128xf32>)
// GENERIC-LABEL: sym_name = "pool_per_channel_bias"
// GENERIC: "indexpool.pool"(%{{.*}}, %{{.*}}, %{{.*}}) <{pool_size = 4 : i64, temperature = 2.000000e+00 : f32}>
func.func @pool_per_channel_bias(%keys: tensor<1024x128xbf16>, %scores: tensor<1024x128xf32>,
                                 %ape: tensor<4x128xf32>)
    -> (tensor<256x128xbf16>, tensor<256x4x128xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores bias(%ape) {pool_size = 4 : i64, temperature = 2.0 : f32}
      : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>)
        -> (tensor<256x128xbf16>, tensor<256x4x128xf32>)
  return %pooled, %w : tensor<256x128xbf16>, tensor<256x4x128xf32>
}

// The tail (1027 mod 8 = 3 tokens) is not pooled; f16 scores and bias, f32 result.
// CHECK-LABEL: func.func @pool_tail_f16_scores
// CHECK: indexpool.pool %{{.*}}, %{{.*}} bias(%{{.*}}) {pool_size = 8 : i64} : (tensor<1027x64xf16>, tensor<1027xf16>, tensor<8xf16>) -> (tensor<128x64xf32>, tensor<128x8xf32>)
func.func @pool_tail_f16_scores(%keys: tensor<1027x64xf16>, %scores: tensor<1027xf16>,
                                %bias: tensor<8xf16>) -> (tensor<128x64xf32>, tensor<128x8xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores bias(%bias) {pool_size = 8 : i64}
      : (tensor<1027x64xf16>, tensor<1027xf16>, tensor<8xf16>) -> (tensor<128x64xf32>, tensor<128x8xf32>)
  return %pooled, %w : tensor<128x64xf32>, tensor<128x8xf32>
}

// CHECK-LABEL: func.func @pool_dynamic
// CHECK: indexpool.pool %{{.*}}, %{{.*}} {pool_size = 4 : i64} : (tensor<?x?xf32>, tensor<?x?xbf16>) -> (tensor<?x?xf32>, tensor<?x4x?xf32>)
func.func @pool_dynamic(%keys: tensor<?x?xf32>, %scores: tensor<?x?xbf16>)
    -> (tensor<?x?xf32>, tensor<?x4x?xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<?x?xf32>, tensor<?x?xbf16>) -> (tensor<?x?xf32>, tensor<?x4x?xf32>)
  return %pooled, %w : tensor<?x?xf32>, tensor<?x4x?xf32>
}

// CHECK-LABEL: func.func @hadamard
// CHECK: indexpool.hadamard %{{.*}} : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
// CHECK: indexpool.hadamard %{{.*}} : (tensor<?x?xf16>) -> tensor<?x?xf32>
// CHECK: indexpool.hadamard %{{.*}} : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
// GENERIC-LABEL: sym_name = "hadamard"
// GENERIC: "indexpool.hadamard"(%{{.*}}) : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
func.func @hadamard(%x: tensor<256x128xbf16>, %d: tensor<?x?xf16>, %q: tensor<1x64x128xbf16>)
    -> (tensor<256x128xbf16>, tensor<?x?xf32>, tensor<1x64x128xbf16>) {
  %y = indexpool.hadamard %x : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  %z = indexpool.hadamard %d : (tensor<?x?xf16>) -> tensor<?x?xf32>
  %r = indexpool.hadamard %q : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
  return %y, %z, %r : tensor<256x128xbf16>, tensor<?x?xf32>, tensor<1x64x128xbf16>
}

// CHECK-LABEL: func.func @quantize
// CHECK: indexpool.quantize %{{.*}} {pow2_scale} : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
// CHECK: indexpool.quantize %{{.*}} {min_absmax = 1.000000e-03 : f32} : (tensor<?x128xf32>) -> (tensor<?x128xi8>, tensor<?xf32>)
// GENERIC-LABEL: sym_name = "quantize"
// GENERIC: "indexpool.quantize"(%{{.*}}) <{min_absmax = 9.99999974E-5 : f32, pow2_scale}>
func.func @quantize(%x: tensor<256x128xbf16>, %y: tensor<?x128xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<?x128xi8>, tensor<?xf32>) {
  %q, %scale = indexpool.quantize %x {pow2_scale}
      : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  %q8, %s8 = indexpool.quantize %y {min_absmax = 1.0e-3 : f32}
      : (tensor<?x128xf32>) -> (tensor<?x128xi8>, tensor<?xf32>)
  return %q, %scale, %q8, %s8 : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<?x128xi8>, tensor<?xf32>
}

// CHECK-LABEL: func.func @dequantize
// CHECK: indexpool.dequantize %{{.*}}, %{{.*}} : (tensor<256x128xf8E4M3FN>, tensor<256xf32>) -> tensor<256x128xf32>
// CHECK: indexpool.dequantize %{{.*}}, %{{.*}} : (tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x?xbf16>
func.func @dequantize(%q: tensor<256x128xf8E4M3FN>, %scale: tensor<256xf32>,
                      %q8: tensor<?x?xi8>, %s8: tensor<?xf32>)
    -> (tensor<256x128xf32>, tensor<?x?xbf16>) {
  %x = indexpool.dequantize %q, %scale : (tensor<256x128xf8E4M3FN>, tensor<256xf32>) -> tensor<256x128xf32>
  %y = indexpool.dequantize %q8, %s8 : (tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x?xbf16>
  return %x, %y : tensor<256x128xf32>, tensor<?x?xbf16>
}

// CHECK-LABEL: func.func @residual_reconstruct
// CHECK: %[[R:.*]] = indexpool.residual %{{.*}}, %{{.*}} {pool_size = 4 : i64} : (tensor<1024x128xf32>, tensor<256x128xf32>) -> tensor<1024x128xf32>
// CHECK: indexpool.reconstruct %{{.*}} {pool_size = 4 : i64} : (tensor<256x128xf32>) -> tensor<1024x128xf32>
// CHECK: indexpool.reconstruct %{{.*}} residual(%[[R]]) {pool_size = 4 : i64} : (tensor<256x128xf32>, tensor<1024x128xf32>) -> tensor<1024x128xf32>
// GENERIC-LABEL: sym_name = "residual_reconstruct"
// GENERIC: "indexpool.residual"(%{{.*}}, %{{.*}}) <{pool_size = 4 : i64}>
// GENERIC: "indexpool.reconstruct"(%{{.*}}) <{pool_size = 4 : i64}>
// GENERIC: "indexpool.reconstruct"(%{{.*}}, %{{.*}}) <{pool_size = 4 : i64}>
func.func @residual_reconstruct(%keys: tensor<1024x128xf32>, %pooled: tensor<256x128xf32>)
    -> (tensor<1024x128xf32>, tensor<1024x128xf32>) {
  %r = indexpool.residual %keys, %pooled {pool_size = 4 : i64}
      : (tensor<1024x128xf32>, tensor<256x128xf32>) -> tensor<1024x128xf32>
  %k0 = indexpool.reconstruct %pooled {pool_size = 4 : i64}
      : (tensor<256x128xf32>) -> tensor<1024x128xf32>
  %k = indexpool.reconstruct %pooled residual(%r) {pool_size = 4 : i64}
      : (tensor<256x128xf32>, tensor<1024x128xf32>) -> tensor<1024x128xf32>
  return %k0, %k : tensor<1024x128xf32>, tensor<1024x128xf32>
}

// A tail of 2 tokens: the residual has G*P = 1024 rows, not T = 1026.
// CHECK-LABEL: func.func @residual_tail_dynamic
// CHECK: indexpool.residual %{{.*}}, %{{.*}} {pool_size = 4 : i64} : (tensor<1026x128xbf16>, tensor<256x128xbf16>) -> tensor<1024x128xf32>
// CHECK: indexpool.reconstruct %{{.*}} residual(%{{.*}}) {pool_size = 2 : i64} : (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
func.func @residual_tail_dynamic(%keys: tensor<1026x128xbf16>, %pooled: tensor<256x128xbf16>,
                                 %p: tensor<?x?xf16>, %r: tensor<?x?xf16>)
    -> (tensor<1024x128xf32>, tensor<?x?xf16>) {
  %res = indexpool.residual %keys, %pooled {pool_size = 4 : i64}
      : (tensor<1026x128xbf16>, tensor<256x128xbf16>) -> tensor<1024x128xf32>
  %k = indexpool.reconstruct %p residual(%r) {pool_size = 2 : i64}
      : (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
  return %res, %k : tensor<1024x128xf32>, tensor<?x?xf16>
}

// CHECK-LABEL: func.func @score
// CHECK: indexpool.score %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xbf16>) -> tensor<1x256xf32>
// CHECK: indexpool.score %{{.*}}, %{{.*}}, %{{.*}} scales(%{{.*}}) : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xf8E4M3FN>, tensor<256xf32>) -> tensor<1x256xf32>
// GENERIC-LABEL: sym_name = "score"
// GENERIC: "indexpool.score"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xbf16>) -> tensor<1x256xf32>
// GENERIC: "indexpool.score"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xf8E4M3FN>, tensor<256xf32>) -> tensor<1x256xf32>
func.func @score(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<256x128xbf16>,
                 %qkeys: tensor<256x128xf8E4M3FN>, %s: tensor<256xf32>)
    -> (tensor<1x256xf32>, tensor<1x256xf32>) {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xbf16>) -> tensor<1x256xf32>
  %logits2 = indexpool.score %q, %w, %qkeys scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xf8E4M3FN>, tensor<256xf32>) -> tensor<1x256xf32>
  return %logits, %logits2 : tensor<1x256xf32>, tensor<1x256xf32>
}

// CHECK-LABEL: func.func @score_dynamic
// CHECK: indexpool.score %{{.*}}, %{{.*}}, %{{.*}} scales(%{{.*}}) : (tensor<?x?x?xf8E4M3FN>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x?xf32>
func.func @score_dynamic(%q: tensor<?x?x?xf8E4M3FN>, %w: tensor<?x?xf32>, %keys: tensor<?x?xi8>,
                         %s: tensor<?xf32>) -> tensor<?x?xf32> {
  %logits = indexpool.score %q, %w, %keys scales(%s)
      : (tensor<?x?x?xf8E4M3FN>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x?xf32>
  return %logits : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @topk
// CHECK: indexpool.topk %{{.*}} {k = 64 : i64} : (tensor<4x1024xf32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
// CHECK: indexpool.topk %{{.*}} valid(%{{.*}}) {k = 64 : i64} : (tensor<4x1024xf32>, tensor<4xi32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
// GENERIC-LABEL: sym_name = "topk"
// GENERIC: "indexpool.topk"(%{{.*}}) <{k = 64 : i64}>
// GENERIC: "indexpool.topk"(%{{.*}}, %{{.*}}) <{k = 64 : i64}>
func.func @topk(%logits: tensor<4x1024xf32>, %len: tensor<4xi32>)
    -> (tensor<4x64xf32>, tensor<4x64xi32>, tensor<4x64xf32>, tensor<4x64xi32>) {
  %vals, %idx = indexpool.topk %logits {k = 64 : i64}
      : (tensor<4x1024xf32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
  %vals2, %idx2 = indexpool.topk %logits valid(%len) {k = 64 : i64}
      : (tensor<4x1024xf32>, tensor<4xi32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
  return %vals, %idx, %vals2, %idx2 : tensor<4x64xf32>, tensor<4x64xi32>, tensor<4x64xf32>, tensor<4x64xi32>
}

// CHECK-LABEL: func.func @topk_dynamic
// CHECK: indexpool.topk %{{.*}} valid(%{{.*}}) {k = 2048 : i64} : (tensor<?x?xf32>, tensor<?xi32>) -> (tensor<?x2048xf32>, tensor<?x?xi32>)
func.func @topk_dynamic(%logits: tensor<?x?xf32>, %len: tensor<?xi32>)
    -> (tensor<?x2048xf32>, tensor<?x?xi32>) {
  %vals, %idx = indexpool.topk %logits valid(%len) {k = 2048 : i64}
      : (tensor<?x?xf32>, tensor<?xi32>) -> (tensor<?x2048xf32>, tensor<?x?xi32>)
  return %vals, %idx : tensor<?x2048xf32>, tensor<?x?xi32>
}

// CHECK-LABEL: func.func @expand
// CHECK: indexpool.expand %{{.*}} {pool_size = 4 : i64} : (tensor<4x64xi32>) -> tensor<4x256xi32>
// CHECK: indexpool.expand %{{.*}} {pool_size = 64 : i64} : (tensor<?x?xi32>) -> tensor<?x?xi32>
// GENERIC-LABEL: sym_name = "expand"
// GENERIC: "indexpool.expand"(%{{.*}}) <{pool_size = 4 : i64}>
func.func @expand(%idx: tensor<4x64xi32>, %d: tensor<?x?xi32>) -> (tensor<4x256xi32>, tensor<?x?xi32>) {
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<4x64xi32>) -> tensor<4x256xi32>
  %t2 = indexpool.expand %d {pool_size = 64 : i64} : (tensor<?x?xi32>) -> tensor<?x?xi32>
  return %tok, %t2 : tensor<4x256xi32>, tensor<?x?xi32>
}

// CHECK-LABEL: func.func @compress
// CHECK: indexpool.compress %{{.*}}, %{{.*}} bias(%{{.*}}) {pool_size = 4 : i64, pow2_scale, rotate} : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>)
// CHECK: indexpool.compress %{{.*}}, %{{.*}} {min_absmax = 5.000000e-01 : f32, pool_size = 2 : i64, temperature = 5.000000e-01 : f32} : (tensor<?x?xf16>, tensor<?xf32>) -> (tensor<?x?xi8>, tensor<?xf32>, tensor<?x2xf32>)
// GENERIC-LABEL: sym_name = "compress"
// GENERIC: "indexpool.compress"(%{{.*}}, %{{.*}}, %{{.*}}) <{min_absmax = 9.99999974E-5 : f32, pool_size = 4 : i64, pow2_scale, rotate, temperature = 1.000000e+00 : f32}>
func.func @compress(%keys: tensor<1024x128xbf16>, %scores: tensor<1024x128xf32>, %b: tensor<4x128xf32>,
                    %dk: tensor<?x?xf16>, %ds: tensor<?xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>,
        tensor<?x?xi8>, tensor<?xf32>, tensor<?x2xf32>) {
  %q, %scale, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>)
        -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>)
  %q2, %s2, %w2 = indexpool.compress %dk, %ds {pool_size = 2 : i64, temperature = 0.5 : f32, min_absmax = 0.5 : f32}
      : (tensor<?x?xf16>, tensor<?xf32>) -> (tensor<?x?xi8>, tensor<?xf32>, tensor<?x2xf32>)
  return %q, %scale, %w, %q2, %s2, %w2 : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>,
      tensor<?x?xi8>, tensor<?xf32>, tensor<?x2xf32>
}

// CHECK-LABEL: func.func @select
// CHECK: indexpool.select %{{.*}}, %{{.*}}, %{{.*}} scales(%{{.*}}) valid(%{{.*}}) {k = 512 : i64, pool_size = 4 : i64} : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>, tensor<1xi32>) -> tensor<1x2048xi32>
// CHECK: indexpool.select %{{.*}}, %{{.*}}, %{{.*}} {k = 16 : i64, pool_size = 4 : i64} : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<?x128xbf16>) -> tensor<1x64xi32>
// CHECK: indexpool.select %{{.*}}, %{{.*}}, %{{.*}} valid(%{{.*}}) {k = 16 : i64, pool_size = 4 : i64} : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<?x128xbf16>, tensor<1xi32>) -> tensor<1x64xi32>
// GENERIC-LABEL: sym_name = "select"
// GENERIC: "indexpool.select"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{k = 512 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, pool_size = 4 : i64}>
// GENERIC: "indexpool.select"(%{{.*}}, %{{.*}}, %{{.*}}) <{k = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, pool_size = 4 : i64}>
// GENERIC: "indexpool.select"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{k = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, pool_size = 4 : i64}>
func.func @select(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<4096x128xf8E4M3FN>,
                  %s: tensor<4096xf32>, %len: tensor<1xi32>, %dk: tensor<?x128xbf16>)
    -> (tensor<1x2048xi32>, tensor<1x64xi32>, tensor<1x64xi32>) {
  %tok = indexpool.select %q, %w, %keys scales(%s) valid(%len) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>, tensor<1xi32>)
        -> tensor<1x2048xi32>
  %t2 = indexpool.select %q, %w, %dk {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<?x128xbf16>) -> tensor<1x64xi32>
  %t3 = indexpool.select %q, %w, %dk valid(%len) {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<?x128xbf16>, tensor<1xi32>) -> tensor<1x64xi32>
  return %tok, %t2, %t3 : tensor<1x2048xi32>, tensor<1x64xi32>, tensor<1x64xi32>
}

// CHECK-LABEL: func.func @refine
// CHECK: indexpool.refine %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {k = 512 : i64} : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1x4096xi32>, tensor<65536x128xbf16>) -> tensor<1x512xi32>
// CHECK: indexpool.refine %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scales(%{{.*}}) {k = 16 : i64} : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1x?xi32>, tensor<?x128xf8E4M3FN>, tensor<?xf32>) -> tensor<1x16xi32>
// GENERIC-LABEL: sym_name = "refine"
// GENERIC: "indexpool.refine"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{k = 512 : i64}>
// GENERIC: "indexpool.refine"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{k = 16 : i64}>
func.func @refine(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %cand: tensor<1x4096xi32>,
                  %keys: tensor<65536x128xbf16>, %dc: tensor<1x?xi32>, %codes: tensor<?x128xf8E4M3FN>,
                  %s: tensor<?xf32>) -> (tensor<1x512xi32>, tensor<1x16xi32>) {
  %tok = indexpool.refine %q, %w, %cand, %keys {k = 512 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1x4096xi32>,
         tensor<65536x128xbf16>) -> tensor<1x512xi32>
  %t2 = indexpool.refine %q, %w, %dc, %codes scales(%s) {k = 16 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1x?xi32>, tensor<?x128xf8E4M3FN>, tensor<?xf32>)
        -> tensor<1x16xi32>
  return %tok, %t2 : tensor<1x512xi32>, tensor<1x16xi32>
}

// The property bounds are inclusive: temperature = 2^-126, and min_absmax =
// qmax * 2^-126 for each codes type (i8: 127 * 2^-126, f8E4M3FN: 7 * 2^-120),
// exact f32 values, verify and round-trip.
// CHECK-LABEL: func.func @property_bounds
// CHECK: indexpool.pool {{.*}}temperature = 1.17549435E-38 : f32
// CHECK: indexpool.quantize {{.*}}min_absmax = 1.49287783E-36 : f32
// CHECK: indexpool.compress {{.*}}min_absmax = 5.26621469E-36 : f32{{.*}}temperature = 1.17549435E-38 : f32
func.func @property_bounds(%keys: tensor<8x16xf32>, %scores: tensor<8xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64, temperature = 0x00800000 : f32}
      : (tensor<8x16xf32>, tensor<8xf32>) -> (tensor<2x16xf32>, tensor<2x4xf32>)
  %q, %s = indexpool.quantize %keys {min_absmax = 0x03FE0000 : f32}
      : (tensor<8x16xf32>) -> (tensor<8x16xi8>, tensor<8xf32>)
  %c, %cs, %cw = indexpool.compress %keys, %scores {pool_size = 4 : i64, temperature = 0x00800000 : f32, min_absmax = 0x04E00000 : f32}
      : (tensor<8x16xf32>, tensor<8xf32>) -> (tensor<2x16xf8E4M3FN>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

// k = N exactly, N * P = 2^31 token indices and K * P = 2^31 tokens: the
// largest sizes the i32 indices allow (types only; nothing is allocated).
// CHECK-LABEL: func.func @index_limits
// CHECK: indexpool.topk %{{.*}} {k = 2147483647 : i64} : (tensor<1x2147483647xf32>) -> (tensor<1x2147483647xf32>, tensor<1x2147483647xi32>)
// CHECK: indexpool.select {{.*}} -> tensor<1x8xi32>
// CHECK: indexpool.expand %{{.*}} {pool_size = 4 : i64} : (tensor<1x536870912xi32>) -> tensor<1x2147483648xi32>
func.func @index_limits(%l: tensor<1x2147483647xf32>, %q: tensor<1x1x1xf32>, %w: tensor<1x1xf32>,
                        %k: tensor<536870912x1xf32>, %i: tensor<1x536870912xi32>) {
  %v, %idx = indexpool.topk %l {k = 2147483647 : i64}
      : (tensor<1x2147483647xf32>) -> (tensor<1x2147483647xf32>, tensor<1x2147483647xi32>)
  %t = indexpool.select %q, %w, %k {k = 2 : i64, pool_size = 4 : i64}
      : (tensor<1x1x1xf32>, tensor<1x1xf32>, tensor<536870912x1xf32>) -> tensor<1x8xi32>
  %e = indexpool.expand %i {pool_size = 4 : i64} : (tensor<1x536870912xi32>) -> tensor<1x2147483648xi32>
  return
}
