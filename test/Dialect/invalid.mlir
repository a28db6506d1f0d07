// One case per verifier rule; each message names the operand or result and
// what was expected.
// RUN: indexpool-opt %s -split-input-file -verify-diagnostics

//===--- pool ---===//

func.func @pool_size_not_pow2(%k: tensor<12x8xf32>, %s: tensor<12xf32>) {
  // expected-error @+1 {{pool_size must be a power of two in [2, 64], got 3}}
  %p, %w = indexpool.pool %k, %s {pool_size = 3 : i64} : (tensor<12x8xf32>, tensor<12xf32>) -> (tensor<4x8xf32>, tensor<4x3xf32>)
  return
}

// -----

func.func @pool_size_too_big(%k: tensor<256x8xf32>, %s: tensor<256xf32>) {
  // expected-error @+1 {{pool_size must be a power of two in [2, 64], got 128}}
  %p, %w = indexpool.pool %k, %s {pool_size = 128 : i64} : (tensor<256x8xf32>, tensor<256xf32>) -> (tensor<2x8xf32>, tensor<2x128xf32>)
  return
}

// -----

func.func @pool_size_one(%k: tensor<4x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{pool_size must be a power of two in [2, 64], got 1}}
  %p, %w = indexpool.pool %k, %s {pool_size = 1 : i64} : (tensor<4x8xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>)
  return
}

// -----

func.func @pool_temperature_zero(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{temperature must be at least 1.17549e-38 (2^-126, so that 1 / temperature is a finite f32), got 0}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64, temperature = 0.0 : f32} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_temperature_negative(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{temperature must be at least 1.17549e-38 (2^-126, so that 1 / temperature is a finite f32), got -2}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64, temperature = -2.0 : f32} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_keys_type(%k: tensor<8x8xi8>, %s: tensor<8xf32>) {
  // expected-error @+1 {{keys must have element type f32, f16 or bf16, got 'i8'}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xi8>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_keys_rank(%k: tensor<8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{keys must be [T, D] (rank 2), got 'tensor<8xf32>'}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_scores_type(%k: tensor<8x8xf32>, %s: tensor<8xi32>) {
  // expected-error @+1 {{scores must have element type f32, f16 or bf16, got 'i32'}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xi32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_scores_rank(%k: tensor<8x8xf32>, %s: tensor<8x8x1xf32>) {
  // expected-error @+1 {{scores must be [T] (per token) or [T, D] (per channel), got 'tensor<8x8x1xf32>'}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8x8x1xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_scores_tokens(%k: tensor<8x8xf32>, %s: tensor<12xf32>) {
  // expected-error @+1 {{scores dimension 0 must be T = 8, got 12}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<12xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_scores_channels(%k: tensor<8x8xf32>, %s: tensor<8x16xf32>) {
  // expected-error @+1 {{scores dimension 1 must be D = 8, got 16}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8x16xf32>) -> (tensor<2x8xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @pool_bias_type(%k: tensor<8x8xf32>, %s: tensor<8xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{bias must have element type f32, f16 or bf16, got 'i32'}}
  %p, %w = indexpool.pool %k, %s bias(%b) {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xf32>, tensor<4xi32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_bias_granularity_token(%k: tensor<8x8xf32>, %s: tensor<8xf32>, %b: tensor<4x8xf32>) {
  // expected-error @+1 {{bias must be [P] like the per-token scores (rank 1), got 'tensor<4x8xf32>'}}
  %p, %w = indexpool.pool %k, %s bias(%b) {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_bias_granularity_channel(%k: tensor<8x8xf32>, %s: tensor<8x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias must be [P, D] like the per-channel scores (rank 2), got 'tensor<4xf32>'}}
  %p, %w = indexpool.pool %k, %s bias(%b) {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8x8xf32>, tensor<4xf32>) -> (tensor<2x8xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @pool_bias_slots(%k: tensor<8x8xf32>, %s: tensor<8xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{bias dimension 0 must be P = 4, got 2}}
  %p, %w = indexpool.pool %k, %s bias(%b) {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xf32>, tensor<2xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_bias_channels(%k: tensor<8x8xf32>, %s: tensor<8x8xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{bias dimension 1 must be D = 8, got 4}}
  %p, %w = indexpool.pool %k, %s bias(%b) {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8x8xf32>, tensor<4x4xf32>) -> (tensor<2x8xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @pool_pooled_type(%k: tensor<8x8xbf16>, %s: tensor<8xf32>) {
  // expected-error @+1 {{result 'pooled' must have element type f32 or the keys' type 'bf16', got 'f16'}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xbf16>, tensor<8xf32>) -> (tensor<2x8xf16>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_pooled_rank(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{result 'pooled' must be [G, D] (rank 2), got 'tensor<16xf32>'}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<16xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_groups_floor(%k: tensor<11x8xf32>, %s: tensor<11xf32>) {
  // expected-error @+1 {{result 'pooled' dimension 0 must be G = floor(T / P) = 2, got 3}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<11x8xf32>, tensor<11xf32>) -> (tensor<3x8xf32>, tensor<3x4xf32>)
  return
}

// -----

func.func @pool_pooled_dim(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{result 'pooled' dimension 1 must be D = 8, got 4}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_weights_type(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{result 'weights' must have element type f32, got 'bf16'}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xbf16>)
  return
}

// -----

func.func @pool_weights_rank_token(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{result 'weights' must be [G, P] for per-token scores (rank 2), got 'tensor<2x4x8xf32>'}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4x8xf32>)
  return
}

// -----

func.func @pool_weights_rank_channel(%k: tensor<8x8xf32>, %s: tensor<8x8xf32>) {
  // expected-error @+1 {{result 'weights' must be [G, P, D] for per-channel scores (rank 3), got 'tensor<2x4xf32>'}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_weights_groups(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{result 'weights' dimension 0 must be G = floor(T / P) = 2, got 8}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8x4xf32>)
  return
}

// -----

func.func @pool_weights_slots(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{result 'weights' dimension 1 must be P = 4, got 2}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x2xf32>)
  return
}

// -----

func.func @pool_weights_channels(%k: tensor<8x8xf32>, %s: tensor<8x8xf32>) {
  // expected-error @+1 {{result 'weights' dimension 2 must be D = 8, got 16}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

func.func @pool_not_a_tensor(%k: memref<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of f32, f16 or bf16, but got 'memref<8x8xf32>'}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (memref<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_unranked(%k: tensor<*xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of f32, f16 or bf16, but got 'tensor<*xf32>'}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<*xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_missing_pool_size(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{requires attribute 'pool_size'}}
  %p, %w = indexpool.pool %k, %s : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

//===--- hadamard ---===//

// -----

func.func @hadamard_not_pow2(%x: tensor<4x96xf32>) {
  // expected-error @+1 {{input's last dimension D must be a power of two <= 1024 to be rotated, got 96}}
  %y = indexpool.hadamard %x : (tensor<4x96xf32>) -> tensor<4x96xf32>
  return
}

// -----

func.func @hadamard_too_wide(%x: tensor<4x2048xf32>) {
  // expected-error @+1 {{input's last dimension D must be a power of two <= 1024 to be rotated, got 2048}}
  %y = indexpool.hadamard %x : (tensor<4x2048xf32>) -> tensor<4x2048xf32>
  return
}

// -----

func.func @hadamard_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{input must have rank >= 1, got 'tensor<f32>'}}
  %y = indexpool.hadamard %x : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @hadamard_input_type(%x: tensor<4x8xi8>) {
  // expected-error @+1 {{input must have element type f32, f16 or bf16, got 'i8'}}
  %y = indexpool.hadamard %x : (tensor<4x8xi8>) -> tensor<4x8xf32>
  return
}

// -----

func.func @hadamard_result_type(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{result must have element type f32 or the input's type 'bf16', got 'f16'}}
  %y = indexpool.hadamard %x : (tensor<4x8xbf16>) -> tensor<4x8xf16>
  return
}

// -----

func.func @hadamard_result_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result must be shaped like the input (rank 2), got 'tensor<32xf32>'}}
  %y = indexpool.hadamard %x : (tensor<4x8xf32>) -> tensor<32xf32>
  return
}

// -----

func.func @hadamard_result_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result dimension 0 must be the input's size = 4, got 5}}
  %y = indexpool.hadamard %x : (tensor<4x8xf32>) -> tensor<5x8xf32>
  return
}

//===--- quantize ---===//

// -----

func.func @quantize_result_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result 'codes' must have element type i8 or f8E4M3FN, got 'f16'}}
  %q, %s = indexpool.quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xf16>, tensor<4xf32>)
  return
}

// -----

func.func @quantize_result_e5m2(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result 'codes' must have element type i8 or f8E4M3FN, got 'f8E5M2'}}
  %q, %s = indexpool.quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xf8E5M2>, tensor<4xf32>)
  return
}

// -----

func.func @quantize_input_type(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{input must have element type f32, f16 or bf16, got 'i32'}}
  %q, %s = indexpool.quantize %x : (tensor<4x8xi32>) -> (tensor<4x8xi8>, tensor<4xf32>)
  return
}

// -----

func.func @quantize_input_rank(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{input must be [N, D] (rank 2), got 'tensor<2x4x8xf32>'}}
  %q, %s = indexpool.quantize %x : (tensor<2x4x8xf32>) -> (tensor<2x4x8xi8>, tensor<2x4xf32>)
  return
}

// -----

func.func @quantize_codes_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result 'codes' dimension 1 must be D = 8, got 16}}
  %q, %s = indexpool.quantize %x : (tensor<4x8xf32>) -> (tensor<4x16xi8>, tensor<4xf32>)
  return
}

// -----

func.func @quantize_scale_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result 'scales' dimension 0 must be N = 4, got 8}}
  %q, %s = indexpool.quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<8xf32>)
  return
}

// -----

func.func @quantize_scale_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result 'scales' must be [N] (rank 1), got 'tensor<4x1xf32>'}}
  %q, %s = indexpool.quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<4x1xf32>)
  return
}

// -----

func.func @quantize_scale_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result 'scales' must have element type f32, got 'f16'}}
  %q, %s = indexpool.quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<4xf16>)
  return
}

// -----

func.func @quantize_min_absmax(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{min_absmax must be at least 1.49288e-36 (127 * 2^-126, so that every i8 scale is a normal f32), got 0}}
  %q, %s = indexpool.quantize %x {min_absmax = 0.0 : f32} : (tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<4xf32>)
  return
}

//===--- dequantize ---===//

// -----

func.func @dequantize_codes_type(%q: tensor<4x8xf16>, %s: tensor<4xf32>) {
  // expected-error @+1 {{codes must have element type i8 or f8E4M3FN, got 'f16'}}
  %x = indexpool.dequantize %q, %s : (tensor<4x8xf16>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @dequantize_scales_rows(%q: tensor<4x8xi8>, %s: tensor<3xf32>) {
  // expected-error @+1 {{scales dimension 0 must be N = 4, got 3}}
  %x = indexpool.dequantize %q, %s : (tensor<4x8xi8>, tensor<3xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @dequantize_result_type(%q: tensor<4x8xi8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{result must have element type f32, f16 or bf16, got 'i32'}}
  %x = indexpool.dequantize %q, %s : (tensor<4x8xi8>, tensor<4xf32>) -> tensor<4x8xi32>
  return
}

// -----

func.func @dequantize_result_shape(%q: tensor<4x8xi8>, %s: tensor<4xf32>) {
  // expected-error @+1 {{result dimension 1 must be D = 8, got 4}}
  %x = indexpool.dequantize %q, %s : (tensor<4x8xi8>, tensor<4xf32>) -> tensor<4x4xf32>
  return
}

//===--- residual / reconstruct ---===//

// -----

func.func @residual_groups(%k: tensor<16x8xf32>, %p: tensor<3x8xf32>) {
  // expected-error @+1 {{pooled dimension 0 must be G = floor(T / P) = 4, got 3}}
  %r = indexpool.residual %k, %p {pool_size = 4 : i64} : (tensor<16x8xf32>, tensor<3x8xf32>) -> tensor<12x8xf32>
  return
}

// -----

func.func @residual_rows(%k: tensor<18x8xf32>, %p: tensor<4x8xf32>) {
  // expected-error @+1 {{result dimension 0 must be G*P = 16, got 18}}
  %r = indexpool.residual %k, %p {pool_size = 4 : i64} : (tensor<18x8xf32>, tensor<4x8xf32>) -> tensor<18x8xf32>
  return
}

// -----

func.func @residual_pool_size(%k: tensor<18x8xf32>, %p: tensor<3x8xf32>) {
  // expected-error @+1 {{pool_size must be a power of two in [2, 64], got 6}}
  %r = indexpool.residual %k, %p {pool_size = 6 : i64} : (tensor<18x8xf32>, tensor<3x8xf32>) -> tensor<18x8xf32>
  return
}

// -----

func.func @residual_dim(%k: tensor<16x8xf32>, %p: tensor<4x4xf32>) {
  // expected-error @+1 {{pooled dimension 1 must be D = 8, got 4}}
  %r = indexpool.residual %k, %p {pool_size = 4 : i64} : (tensor<16x8xf32>, tensor<4x4xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @reconstruct_residual_rows(%p: tensor<4x8xf32>, %r: tensor<15x8xf32>) {
  // expected-error @+1 {{residual dimension 0 must be G*P = 16, got 15}}
  %k = indexpool.reconstruct %p residual(%r) {pool_size = 4 : i64} : (tensor<4x8xf32>, tensor<15x8xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @reconstruct_result_dim(%p: tensor<4x8xf32>) {
  // expected-error @+1 {{result dimension 1 must be D = 8, got 16}}
  %k = indexpool.reconstruct %p {pool_size = 4 : i64} : (tensor<4x8xf32>) -> tensor<16x16xf32>
  return
}

// -----

func.func @reconstruct_pooled_type(%p: tensor<4x8xi8>) {
  // expected-error @+1 {{pooled must have element type f32, f16 or bf16, got 'i8'}}
  %k = indexpool.reconstruct %p {pool_size = 4 : i64} : (tensor<4x8xi8>) -> tensor<16x8xf32>
  return
}

//===--- score ---===//

// -----

func.func @score_quantized_without_scales(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xf8E4M3FN>) {
  // expected-error @+1 {{keys of quantized type 'f8E4M3FN' require scales(...) of shape [N]}}
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xf8E4M3FN>) -> tensor<1x16xf32>
  return
}

// -----

func.func @score_int8_without_scales(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xi8>) {
  // expected-error @+1 {{keys of quantized type 'i8' require scales(...) of shape [N]}}
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xi8>) -> tensor<1x16xf32>
  return
}

// -----

func.func @score_query_rank(%q: tensor<4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{query must be [M, H, D] (rank 3), got 'tensor<4x8xbf16>'}}
  %l = indexpool.score %q, %w, %k : (tensor<4x8xbf16>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<1x16xf32>
  return
}

// -----

func.func @score_query_type(%q: tensor<1x4x8xi8>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{query must have element type f32, f16, bf16 or f8E4M3FN, got 'i8'}}
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xi8>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<1x16xf32>
  return
}

// -----

func.func @score_weights_type(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xbf16>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{weights must have element type f32, got 'bf16'}}
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xbf16>, tensor<16x8xbf16>) -> tensor<1x16xf32>
  return
}

// -----

func.func @score_weights_heads(%q: tensor<1x4x8xbf16>, %w: tensor<1x8xf32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{weights dimension 1 must be H = 4, got 8}}
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x8xf32>, tensor<16x8xbf16>) -> tensor<1x16xf32>
  return
}

// -----

func.func @score_weights_queries(%q: tensor<2x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{weights dimension 0 must be M = 2, got 1}}
  %l = indexpool.score %q, %w, %k : (tensor<2x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<2x16xf32>
  return
}

// -----

func.func @score_keys_dim(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x16xbf16>) {
  // expected-error @+1 {{keys dimension 1 must be D (the query's last dimension) = 8, got 16}}
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x16xbf16>) -> tensor<1x16xf32>
  return
}

// -----

func.func @score_keys_type(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xi32>) {
  // expected-error @+1 {{keys must have element type f32, f16, bf16, i8 or f8E4M3FN, got 'i32'}}
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xi32>) -> tensor<1x16xf32>
  return
}

// -----

func.func @score_scales_entries(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xi8>, %s: tensor<8xf32>) {
  // expected-error @+1 {{scales dimension 0 must be N = 16, got 8}}
  %l = indexpool.score %q, %w, %k scales(%s) : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xi8>, tensor<8xf32>) -> tensor<1x16xf32>
  return
}

// -----

func.func @score_logits_shape(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{result 'logits' dimension 1 must be N = 16, got 4}}
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<1x4xf32>
  return
}

// -----

func.func @score_logits_type(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{result 'logits' must have element type f32, got 'bf16'}}
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<1x16xbf16>
  return
}

//===--- topk ---===//

// -----

func.func @topk_k_zero(%l: tensor<4x16xf32>) {
  // expected-error @+1 {{k must be positive, got 0}}
  %v, %i = indexpool.topk %l {k = 0 : i64} : (tensor<4x16xf32>) -> (tensor<4x0xf32>, tensor<4x0xi32>)
  return
}

// -----

func.func @topk_k_negative(%l: tensor<4x16xf32>) {
  // expected-error @+1 {{k must be positive, got -3}}
  %v, %i = indexpool.topk %l {k = -3 : i64} : (tensor<4x16xf32>) -> (tensor<4x?xf32>, tensor<4x?xi32>)
  return
}

// -----

func.func @topk_k_too_big(%l: tensor<4x16xf32>) {
  // expected-error @+1 {{k must be at most N = 16 (the number of columns), got 32}}
  %v, %i = indexpool.topk %l {k = 32 : i64} : (tensor<4x16xf32>) -> (tensor<4x32xf32>, tensor<4x32xi32>)
  return
}

// -----

func.func @topk_valid_shape(%l: tensor<4x16xf32>, %len: tensor<8xi32>) {
  // expected-error @+1 {{valid dimension 0 must be M = 4, got 8}}
  %v, %i = indexpool.topk %l valid(%len) {k = 8 : i64} : (tensor<4x16xf32>, tensor<8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  return
}

// -----

func.func @topk_valid_rank(%l: tensor<4x16xf32>, %len: tensor<4x1xi32>) {
  // expected-error @+1 {{valid must be [M] (rank 1), got 'tensor<4x1xi32>'}}
  %v, %i = indexpool.topk %l valid(%len) {k = 8 : i64} : (tensor<4x16xf32>, tensor<4x1xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  return
}

// -----

func.func @topk_valid_type(%l: tensor<4x16xf32>, %len: tensor<4xi64>) {
  // expected-error @+1 {{valid must have element type i32, got 'i64'}}
  %v, %i = indexpool.topk %l valid(%len) {k = 8 : i64} : (tensor<4x16xf32>, tensor<4xi64>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  return
}

// -----

func.func @topk_logits_type(%l: tensor<4x16xbf16>) {
  // expected-error @+1 {{logits must have element type f32, got 'bf16'}}
  %v, %i = indexpool.topk %l {k = 8 : i64} : (tensor<4x16xbf16>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  return
}

// -----

func.func @topk_values_width(%l: tensor<4x16xf32>) {
  // expected-error @+1 {{result 'values' dimension 1 must be K = 8, got 4}}
  %v, %i = indexpool.topk %l {k = 8 : i64} : (tensor<4x16xf32>) -> (tensor<4x4xf32>, tensor<4x8xi32>)
  return
}

// -----

func.func @topk_indices_type(%l: tensor<4x16xf32>) {
  // expected-error @+1 {{result 'indices' must have element type i32, got 'i64'}}
  %v, %i = indexpool.topk %l {k = 8 : i64} : (tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xi64>)
  return
}

// -----

func.func @topk_indices_rows(%l: tensor<4x16xf32>) {
  // expected-error @+1 {{result 'indices' dimension 0 must be M = 4, got 2}}
  %v, %i = indexpool.topk %l {k = 8 : i64} : (tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<2x8xi32>)
  return
}

//===--- expand ---===//

// -----

func.func @expand_width(%i: tensor<4x16xi32>) {
  // expected-error @+1 {{result 'tokens' dimension 1 must be K*P = 64, got 60}}
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<4x16xi32>) -> tensor<4x60xi32>
  return
}

// -----

func.func @expand_rows(%i: tensor<4x16xi32>) {
  // expected-error @+1 {{result 'tokens' dimension 0 must be M = 4, got 1}}
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<4x16xi32>) -> tensor<1x64xi32>
  return
}

// -----

func.func @expand_indices_type(%i: tensor<4x16xi64>) {
  // expected-error @+1 {{indices must have element type i32, got 'i64'}}
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<4x16xi64>) -> tensor<4x64xi32>
  return
}

// -----

func.func @expand_pool_size(%i: tensor<4x16xi32>) {
  // expected-error @+1 {{pool_size must be a power of two in [2, 64], got 5}}
  %t = indexpool.expand %i {pool_size = 5 : i64} : (tensor<4x16xi32>) -> tensor<4x80xi32>
  return
}

//===--- compress ---===//

// -----

func.func @compress_rotate_dim(%k: tensor<8x96xbf16>, %s: tensor<8xf32>) {
  // expected-error @+1 {{keys' dimension D must be a power of two <= 1024 to be rotated, got 96}}
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64, rotate} : (tensor<8x96xbf16>, tensor<8xf32>) -> (tensor<2x96xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @compress_codes_type(%k: tensor<8x16xbf16>, %s: tensor<8xf32>) {
  // expected-error @+1 {{result 'codes' must have element type i8 or f8E4M3FN, got 'bf16'}}
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64} : (tensor<8x16xbf16>, tensor<8xf32>) -> (tensor<2x16xbf16>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @compress_groups(%k: tensor<8x16xbf16>, %s: tensor<8xf32>) {
  // expected-error @+1 {{result 'codes' dimension 0 must be G = floor(T / P) = 2, got 8}}
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64} : (tensor<8x16xbf16>, tensor<8xf32>) -> (tensor<8x16xi8>, tensor<8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @compress_weights(%k: tensor<8x16xbf16>, %s: tensor<8x16xf32>) {
  // expected-error @+1 {{result 'weights' must be [G, P, D] for per-channel scores (rank 3), got 'tensor<2x4xf32>'}}
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64} : (tensor<8x16xbf16>, tensor<8x16xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @compress_min_absmax(%k: tensor<8x16xbf16>, %s: tensor<8xf32>) {
  // expected-error @+1 {{min_absmax must be at least 1.49288e-36 (127 * 2^-126, so that every i8 scale is a normal f32), got -1}}
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64, min_absmax = -1.0 : f32} : (tensor<8x16xbf16>, tensor<8xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @compress_temperature(%k: tensor<8x16xbf16>, %s: tensor<8xf32>) {
  // expected-error @+1 {{temperature must be at least 1.17549e-38 (2^-126, so that 1 / temperature is a finite f32), got 0}}
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64, temperature = 0.0 : f32} : (tensor<8x16xbf16>, tensor<8xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @compress_bias(%k: tensor<8x16xbf16>, %s: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{bias dimension 0 must be P = 4, got 8}}
  %q, %sc, %w = indexpool.compress %k, %s bias(%b) {pool_size = 4 : i64} : (tensor<8x16xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

//===--- select ---===//

// -----

func.func @select_width(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{result 'tokens' dimension 1 must be K*P = 32, got 16}}
  %t = indexpool.select %q, %w, %k {k = 8 : i64, pool_size = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<1x16xi32>
  return
}

// -----

func.func @select_k_too_big(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{k must be at most N = 16 (the number of columns), got 17}}
  %t = indexpool.select %q, %w, %k {k = 17 : i64, pool_size = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<1x68xi32>
  return
}

// -----

func.func @select_without_scales(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xi8>) {
  // expected-error @+1 {{keys of quantized type 'i8' require scales(...) of shape [N]}}
  %t = indexpool.select %q, %w, %k {k = 8 : i64, pool_size = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xi8>) -> tensor<1x32xi32>
  return
}

// -----

func.func @select_valid(%q: tensor<2x4x8xbf16>, %w: tensor<2x4xf32>, %k: tensor<16x8xbf16>, %len: tensor<1xi32>) {
  // expected-error @+1 {{valid dimension 0 must be M = 2, got 1}}
  %t = indexpool.select %q, %w, %k valid(%len) {k = 8 : i64, pool_size = 4 : i64} : (tensor<2x4x8xbf16>, tensor<2x4xf32>, tensor<16x8xbf16>, tensor<1xi32>) -> tensor<2x32xi32>
  return
}

// -----

func.func @select_pool_size(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{pool_size must be a power of two in [2, 64], got 0}}
  %t = indexpool.select %q, %w, %k {k = 8 : i64, pool_size = 0 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<1x0xi32>
  return
}

//===--- refine ---===//

// -----

func.func @refine_query_rank(%q: tensor<4x8xbf16>, %w: tensor<1x4xf32>, %c: tensor<1x8xi32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{query must be [M, H, D] (rank 3), got 'tensor<4x8xbf16>'}}
  %t = indexpool.refine %q, %w, %c, %k {k = 4 : i64} : (tensor<4x8xbf16>, tensor<1x4xf32>, tensor<1x8xi32>, tensor<16x8xbf16>) -> tensor<1x4xi32>
  return
}

// -----

func.func @refine_candidates_type(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %c: tensor<1x8xi64>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{candidates must have element type i32, got 'i64'}}
  %t = indexpool.refine %q, %w, %c, %k {k = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<1x8xi64>, tensor<16x8xbf16>) -> tensor<1x4xi32>
  return
}

// -----

func.func @refine_candidates_rows(%q: tensor<2x4x8xbf16>, %w: tensor<2x4xf32>, %c: tensor<1x8xi32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{candidates dimension 0 must be M = 2, got 1}}
  %t = indexpool.refine %q, %w, %c, %k {k = 4 : i64} : (tensor<2x4x8xbf16>, tensor<2x4xf32>, tensor<1x8xi32>, tensor<16x8xbf16>) -> tensor<2x4xi32>
  return
}

// -----

func.func @refine_weights_heads(%q: tensor<1x4x8xbf16>, %w: tensor<1x2xf32>, %c: tensor<1x8xi32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{weights dimension 1 must be H = 4, got 2}}
  %t = indexpool.refine %q, %w, %c, %k {k = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x2xf32>, tensor<1x8xi32>, tensor<16x8xbf16>) -> tensor<1x4xi32>
  return
}

// -----

func.func @refine_keys_dim(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %c: tensor<1x8xi32>, %k: tensor<16x16xbf16>) {
  // expected-error @+1 {{keys dimension 1 must be D (the query's last dimension) = 8, got 16}}
  %t = indexpool.refine %q, %w, %c, %k {k = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<1x8xi32>, tensor<16x16xbf16>) -> tensor<1x4xi32>
  return
}

// -----

func.func @refine_without_scales(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %c: tensor<1x8xi32>, %k: tensor<16x8xf8E4M3FN>) {
  // expected-error @+1 {{keys of quantized type 'f8E4M3FN' require scales(...) of shape [T]}}
  %t = indexpool.refine %q, %w, %c, %k {k = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<1x8xi32>, tensor<16x8xf8E4M3FN>) -> tensor<1x4xi32>
  return
}

// -----

func.func @refine_scales_full_precision(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %c: tensor<1x8xi32>, %k: tensor<16x8xbf16>, %s: tensor<16xf32>) {
  // expected-error @+1 {{keys of type 'bf16' are full precision: they take no scales(...)}}
  %t = indexpool.refine %q, %w, %c, %k scales(%s) {k = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<1x8xi32>, tensor<16x8xbf16>, tensor<16xf32>) -> tensor<1x4xi32>
  return
}

// -----

func.func @refine_scales_rows(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %c: tensor<1x8xi32>, %k: tensor<16x8xi8>, %s: tensor<15xf32>) {
  // expected-error @+1 {{scales dimension 0 must be T = 16, got 15}}
  %t = indexpool.refine %q, %w, %c, %k scales(%s) {k = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<1x8xi32>, tensor<16x8xi8>, tensor<15xf32>) -> tensor<1x4xi32>
  return
}

// -----

func.func @refine_k_zero(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %c: tensor<1x8xi32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{k must be positive, got 0}}
  %t = indexpool.refine %q, %w, %c, %k {k = 0 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<1x8xi32>, tensor<16x8xbf16>) -> tensor<1x0xi32>
  return
}

// -----

func.func @refine_candidates_beyond_i32(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %c: tensor<1x8589934592xi32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{C = 8589934592 candidates of a row do not fit the i32 positions of a row (at most 2^31 - 1)}}
  %t = indexpool.refine %q, %w, %c, %k {k = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<1x8589934592xi32>, tensor<16x8xbf16>) -> tensor<1x4xi32>
  return
}

// -----

func.func @refine_k_beyond_c(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %c: tensor<1x8xi32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{k must be at most C = 8 (the candidates of a row), got 9}}
  %t = indexpool.refine %q, %w, %c, %k {k = 9 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<1x8xi32>, tensor<16x8xbf16>) -> tensor<1x9xi32>
  return
}

// -----

func.func @refine_too_many_keys(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %c: tensor<1x8xi32>, %k: tensor<2147483648x8xbf16>) {
  // expected-error @+1 {{T = 2147483648 keys do not fit the i32 token ids (at most 2^31 - 1)}}
  %t = indexpool.refine %q, %w, %c, %k {k = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<1x8xi32>, tensor<2147483648x8xbf16>) -> tensor<1x4xi32>
  return
}

// -----

func.func @refine_tokens_width(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %c: tensor<1x8xi32>, %k: tensor<16x8xbf16>) {
  // expected-error @+1 {{result 'tokens' dimension 1 must be K = 4, got 8}}
  %t = indexpool.refine %q, %w, %c, %k {k = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<1x8xi32>, tensor<16x8xbf16>) -> tensor<1x8xi32>
  return
}

//===--- operand groups (generic form) ---===//

// -----

// A doubled required group would make keys read past the operands.
func.func @select_segments_doubled(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>) {
  // expected-error @+1 {{operandSegmentSizes must give weights exactly one operand, got 2}}
  %t = "indexpool.select"(%q, %w, %k) <{k = 2 : i64, pool_size = 4 : i64, operandSegmentSizes = array<i32: 1, 2, 0, 0, 0>}> : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>) -> tensor<1x8xi32>
  return
}

// -----

func.func @select_segments_empty_keys(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>, %len: tensor<1xi32>) {
  // expected-error @+1 {{operandSegmentSizes must give keys exactly one operand, got 0}}
  %t = "indexpool.select"(%q, %w, %k, %len) <{k = 2 : i64, pool_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1>}> : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>, tensor<1xi32>) -> tensor<1x8xi32>
  return
}

// -----

func.func @select_segments_empty_query(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>, %len: tensor<1xi32>) {
  // expected-error @+1 {{operandSegmentSizes must give query exactly one operand, got 0}}
  %t = "indexpool.select"(%q, %w, %k, %len) <{k = 2 : i64, pool_size = 4 : i64, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1>}> : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>, tensor<1xi32>) -> tensor<1x8xi32>
  return
}

// -----

func.func @select_segments_doubled_keys(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>) {
  // expected-error @+1 {{operandSegmentSizes must give keys exactly one operand, got 2}}
  %t = "indexpool.select"(%q, %w, %k, %k) <{k = 2 : i64, pool_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 2, 0, 0>}> : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<1x8xi32>
  return
}

// -----

func.func @select_segments_two_valid(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>, %len: tensor<1xi32>) {
  // expected-error @+1 {{operand group starting at #3 requires 0 or 1 element, but found 2}}
  %t = "indexpool.select"(%q, %w, %k, %len, %len) <{k = 2 : i64, pool_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 2>}> : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1x8xi32>
  return
}

// -----

// The ops with one Optional operand derive their groups from the operand
// count: too many or too few operands are rejected, each op.
func.func @pool_two_biases(%k: tensor<8x16xf32>, %s: tensor<8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operand group starting at #2 requires 0 or 1 element, but found 2}}
  %p:2 = "indexpool.pool"(%k, %s, %b, %b) <{pool_size = 4 : i64}> : (tensor<8x16xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x16xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_no_scores(%k: tensor<8x16xf32>) {
  // expected-error @+1 {{expected 2 or more operands, but found 1}}
  %p:2 = "indexpool.pool"(%k) <{pool_size = 4 : i64}> : (tensor<8x16xf32>) -> (tensor<2x16xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @compress_two_biases(%k: tensor<8x16xf32>, %s: tensor<8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operand group starting at #2 requires 0 or 1 element, but found 2}}
  %c:3 = "indexpool.compress"(%k, %s, %b, %b) <{pool_size = 4 : i64}> : (tensor<8x16xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @compress_no_scores(%k: tensor<8x16xf32>) {
  // expected-error @+1 {{expected 2 or more operands, but found 1}}
  %c:3 = "indexpool.compress"(%k) <{pool_size = 4 : i64}> : (tensor<8x16xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @reconstruct_two_residuals(%p: tensor<2x16xf32>, %r: tensor<8x16xf32>) {
  // expected-error @+1 {{operand group starting at #1 requires 0 or 1 element, but found 2}}
  %0 = "indexpool.reconstruct"(%p, %r, %r) <{pool_size = 4 : i64}> : (tensor<2x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @reconstruct_no_operands() {
  // expected-error @+1 {{expected 1 or more operands, but found 0}}
  %0 = "indexpool.reconstruct"() <{pool_size = 4 : i64}> : () -> tensor<8x16xf32>
  return
}

// -----

func.func @score_two_scales(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xi8>, %s: tensor<8xf32>) {
  // expected-error @+1 {{operand group starting at #3 requires 0 or 1 element, but found 2}}
  %0 = "indexpool.score"(%q, %w, %k, %s, %s) : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xi8>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @score_no_keys(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>) {
  // expected-error @+1 {{expected 3 or more operands, but found 2}}
  %0 = "indexpool.score"(%q, %w) : (tensor<1x2x16xf32>, tensor<1x2xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @topk_two_valid(%l: tensor<2x16xf32>, %v: tensor<2xi32>) {
  // expected-error @+1 {{operand group starting at #1 requires 0 or 1 element, but found 2}}
  %0:2 = "indexpool.topk"(%l, %v, %v) <{k = 4 : i64}> : (tensor<2x16xf32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  return
}

// -----

func.func @topk_no_logits() {
  // expected-error @+1 {{expected 1 or more operands, but found 0}}
  %0:2 = "indexpool.topk"() <{k = 4 : i64}> : () -> (tensor<2x4xf32>, tensor<2x4xi32>)
  return
}

// -----

//===--- an optional operand's keyword needs the operand ---===//

func.func @pool_empty_bias(%k: tensor<8x16xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{expected an operand inside the parentheses; leave out the whole group for none}}
  %p, %w = indexpool.pool %k, %s bias() {pool_size = 4 : i64} : (tensor<8x16xf32>, tensor<8xf32>) -> (tensor<2x16xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @compress_empty_bias(%k: tensor<8x16xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{expected an operand inside the parentheses; leave out the whole group for none}}
  %q, %sc, %w = indexpool.compress %k, %s bias() {pool_size = 4 : i64} : (tensor<8x16xf32>, tensor<8xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @reconstruct_empty_residual(%p: tensor<2x16xf32>) {
  // expected-error @+1 {{expected an operand inside the parentheses; leave out the whole group for none}}
  %0 = indexpool.reconstruct %p residual() {pool_size = 4 : i64} : (tensor<2x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @score_empty_scales(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>) {
  // expected-error @+1 {{expected an operand inside the parentheses; leave out the whole group for none}}
  %0 = indexpool.score %q, %w, %k scales() : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @topk_empty_valid(%l: tensor<2x16xf32>) {
  // expected-error @+1 {{expected an operand inside the parentheses; leave out the whole group for none}}
  %v, %i = indexpool.topk %l valid() {k = 4 : i64} : (tensor<2x16xf32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  return
}

// -----

func.func @select_empty_valid(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>) {
  // expected-error @+1 {{expected an operand inside the parentheses; leave out the whole group for none}}
  %t = indexpool.select %q, %w, %k valid() {k = 2 : i64, pool_size = 4 : i64} : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>) -> tensor<1x8xi32>
  return
}

// -----

//===--- size arithmetic: overflow and i32 limits ---===//

// 2^62 groups times P = 4 wraps to 0 rows without the check.
func.func @reconstruct_rows_overflow(%p: tensor<2305843009213693952x1xf16>) {
  // expected-error @+1 {{G*P = 2305843009213693952 * 4 overflows int64}}
  %0 = indexpool.reconstruct %p {pool_size = 4 : i64} : (tensor<2305843009213693952x1xf16>) -> tensor<0x1xf16>
  return
}

// -----

func.func @residual_rows_overflow(%k: tensor<?x1xf16>, %p: tensor<2305843009213693952x1xf16>) {
  // expected-error @+1 {{G*P = 2305843009213693952 * 4 overflows int64}}
  %0 = indexpool.residual %k, %p {pool_size = 4 : i64} : (tensor<?x1xf16>, tensor<2305843009213693952x1xf16>) -> tensor<0x1xf16>
  return
}

// -----

func.func @hadamard_element_count(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error @+1 {{the element count of input 'tensor<4611686018427387904x4xf32>' overflows int64}}
  %0 = indexpool.hadamard %x : (tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32>
  return
}

// -----

func.func @quantize_byte_size(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{the size in bytes of result 'scales' 'tensor<4611686018427387904xf32>' overflows int64}}
  %q, %s = indexpool.quantize %x : (tensor<?x4xf32>) -> (tensor<?x4xi8>, tensor<4611686018427387904xf32>)
  return
}

// -----

func.func @pool_result_byte_size(%k: tensor<?x1xf32>, %s: tensor<?xf32>) {
  // expected-error @+1 {{the size in bytes of result 'pooled' 'tensor<2305843009213693952x1xf32>' overflows int64}}
  %p, %w = indexpool.pool %k, %s {pool_size = 2 : i64} : (tensor<?x1xf32>, tensor<?xf32>) -> (tensor<2305843009213693952x1xf32>, tensor<?x2xf32>)
  return
}

// -----

func.func @topk_columns_beyond_i32(%l: tensor<1x2147483648xf32>) {
  // expected-error @+1 {{N = 2147483648 columns do not fit the i32 column indices (at most 2^31 - 1)}}
  %v, %i = indexpool.topk %l {k = 4 : i64} : (tensor<1x2147483648xf32>) -> (tensor<1x4xf32>, tensor<1x4xi32>)
  return
}

// -----

func.func @select_token_indices_beyond_i32(%q: tensor<1x1x1xf32>, %w: tensor<1x1xf32>, %k: tensor<1073741824x1xf32>) {
  // expected-error @+1 {{N * P = 1073741824 * 4 = 4294967296 tokens do not fit the i32 token indices (at most 2^31)}}
  %t = indexpool.select %q, %w, %k {k = 2 : i64, pool_size = 4 : i64} : (tensor<1x1x1xf32>, tensor<1x1xf32>, tensor<1073741824x1xf32>) -> tensor<1x8xi32>
  return
}

// -----

func.func @select_columns_beyond_i32(%q: tensor<1x1x1xf32>, %w: tensor<1x1xf32>, %k: tensor<2147483648x1xf32>) {
  // expected-error @+1 {{N = 2147483648 columns do not fit the i32 column indices (at most 2^31 - 1)}}
  %t = indexpool.select %q, %w, %k {k = 2 : i64, pool_size = 2 : i64} : (tensor<1x1x1xf32>, tensor<1x1xf32>, tensor<2147483648x1xf32>) -> tensor<1x4xi32>
  return
}

// -----

// k * pool_size overflows int64 (N dynamic, so k <= N cannot be checked yet).
func.func @select_k_times_p_overflow(%q: tensor<1x1x8xf32>, %w: tensor<1x1xf32>, %k: tensor<?x8xf32>) {
  // expected-error @+1 {{K * P = 4611686018427387904 * 4 (overflows int64) tokens do not fit the i32 token indices (at most 2^31)}}
  %t = indexpool.select %q, %w, %k {k = 4611686018427387904 : i64, pool_size = 4 : i64} : (tensor<1x1x8xf32>, tensor<1x1xf32>, tensor<?x8xf32>) -> tensor<1x?xi32>
  return
}

// -----

func.func @expand_tokens_beyond_i32(%i: tensor<1x1073741824xi32>) {
  // expected-error @+1 {{K * P = 1073741824 * 4 = 4294967296 tokens do not fit the i32 token indices (at most 2^31)}}
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<1x1073741824xi32>) -> tensor<1x4294967296xi32>
  return
}

// -----

// K unknown: the tokens' static columns are bounded the same way.
func.func @expand_dynamic_k_tokens_beyond_i32(%i: tensor<1x?xi32>) {
  // expected-error @+1 {{K * P = 1073741824 * 4 = 4294967296 tokens do not fit the i32 token indices (at most 2^31)}}
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<1x?xi32>) -> tensor<1x4294967296xi32>
  return
}

// -----

func.func @expand_dynamic_k_not_multiple(%i: tensor<1x?xi32>) {
  // expected-error @+1 {{result 'tokens' dimension 1 must be K*P, a multiple of P = 4, got 10}}
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<1x?xi32>) -> tensor<1x10xi32>
  return
}

// -----

//===--- a static contradiction behind one dynamic size ---===//

// G is unknown from keys, but pooled and weights both say it.
func.func @pool_groups_disagree(%k: tensor<?x8xf32>, %s: tensor<?xf32>) {
  // expected-error @+1 {{result 'weights' dimension 0 must be G = floor(T / P) = 10 (as result 'pooled' dimension 0), got 11}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<?x8xf32>, tensor<?xf32>) -> (tensor<10x8xf32>, tensor<11x4xf32>)
  return
}

// -----

// T is known from the per-token scores alone.
func.func @pool_tokens_from_scores(%k: tensor<?x8xf32>, %s: tensor<40xf32>) {
  // expected-error @+1 {{result 'pooled' dimension 0 must be G = floor(T / P) = 10, got 11}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<?x8xf32>, tensor<40xf32>) -> (tensor<11x8xf32>, tensor<?x4xf32>)
  return
}

// -----

func.func @pool_dim_disagree(%k: tensor<8x?xf32>, %s: tensor<8x?xf32>, %b: tensor<4x16xf32>) {
  // expected-error @+1 {{result 'pooled' dimension 1 must be D = 16 (as bias dimension 1), got 8}}
  %p, %w = indexpool.pool %k, %s bias(%b) {pool_size = 4 : i64} : (tensor<8x?xf32>, tensor<8x?xf32>, tensor<4x16xf32>) -> (tensor<2x8xf32>, tensor<2x4x?xf32>)
  return
}

// -----

func.func @compress_groups_disagree(%k: tensor<?x8xf32>, %s: tensor<?xf32>) {
  // expected-error @+1 {{result 'scales' dimension 0 must be G = floor(T / P) = 10 (as result 'codes' dimension 0), got 12}}
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64} : (tensor<?x8xf32>, tensor<?xf32>) -> (tensor<10x8xi8>, tensor<12xf32>, tensor<?x4xf32>)
  return
}

// -----

func.func @score_queries_disagree(%q: tensor<?x4x8xf32>, %w: tensor<2x4xf32>, %k: tensor<16x8xf32>) {
  // expected-error @+1 {{result 'logits' dimension 0 must be M = 2 (as weights dimension 0), got 3}}
  %0 = indexpool.score %q, %w, %k : (tensor<?x4x8xf32>, tensor<2x4xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
  return
}

// -----

func.func @score_entries_disagree(%q: tensor<1x4x8xf32>, %w: tensor<1x4xf32>, %k: tensor<?x8xi8>, %s: tensor<16xf32>) {
  // expected-error @+1 {{result 'logits' dimension 1 must be N = 16 (as scales dimension 0), got 15}}
  %0 = indexpool.score %q, %w, %k scales(%s) : (tensor<1x4x8xf32>, tensor<1x4xf32>, tensor<?x8xi8>, tensor<16xf32>) -> tensor<1x15xf32>
  return
}

// -----

func.func @dequantize_rows_disagree(%c: tensor<?x8xi8>, %s: tensor<3xf32>) {
  // expected-error @+1 {{result dimension 0 must be N = 3 (as scales dimension 0), got 4}}
  %0 = indexpool.dequantize %c, %s : (tensor<?x8xi8>, tensor<3xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @reconstruct_rows_disagree(%p: tensor<?x8xf32>, %r: tensor<16x8xf32>) {
  // expected-error @+1 {{result dimension 0 must be G*P = 16 (as residual dimension 0), got 20}}
  %0 = indexpool.reconstruct %p residual(%r) {pool_size = 4 : i64} : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<20x8xf32>
  return
}

// -----

func.func @reconstruct_rows_not_multiple(%p: tensor<?x8xf32>) {
  // expected-error @+1 {{result dimension 0 must be G*P, a multiple of P = 4, got 10}}
  %0 = indexpool.reconstruct %p {pool_size = 4 : i64} : (tensor<?x8xf32>) -> tensor<10x8xf32>
  return
}

// -----

func.func @topk_rows_disagree(%l: tensor<?x16xf32>, %v: tensor<3xi32>) {
  // expected-error @+1 {{result 'values' dimension 0 must be M = 3 (as valid dimension 0), got 2}}
  %0, %1 = indexpool.topk %l valid(%v) {k = 4 : i64} : (tensor<?x16xf32>, tensor<3xi32>) -> (tensor<2x4xf32>, tensor<?x4xi32>)
  return
}

// -----

func.func @select_rows_disagree(%q: tensor<?x4x8xf32>, %w: tensor<?x4xf32>, %k: tensor<16x8xf32>, %len: tensor<2xi32>) {
  // expected-error @+1 {{result 'tokens' dimension 0 must be M = 2 (as valid dimension 0), got 3}}
  %t = indexpool.select %q, %w, %k valid(%len) {k = 2 : i64, pool_size = 4 : i64} : (tensor<?x4x8xf32>, tensor<?x4xf32>, tensor<16x8xf32>, tensor<2xi32>) -> tensor<3x8xi32>
  return
}

// -----

//===--- property bounds ---===//

func.func @pool_temperature_subnormal(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{temperature must be at least 1.17549e-38 (2^-126, so that 1 / temperature is a finite f32), got 1e-40}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64, temperature = 1.0e-40 : f32} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_temperature_just_below(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{temperature must be at least 1.17549e-38 (2^-126, so that 1 / temperature is a finite f32), got 1.1754942e-38}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64, temperature = 0x007FFFFF : f32} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @pool_temperature_inf(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{temperature must be finite, got inf}}
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64, temperature = 0x7F800000 : f32} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @compress_temperature_nan(%k: tensor<8x16xbf16>, %s: tensor<8xf32>) {
  // expected-error @+1 {{temperature must be finite, got nan}}
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64, temperature = 0x7FC00000 : f32} : (tensor<8x16xbf16>, tensor<8xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @quantize_min_absmax_f8(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{min_absmax must be at least 5.26621e-36 (448 * 2^-126, so that every f8E4M3FN scale is a normal f32), got 1e-40}}
  %q, %s = indexpool.quantize %x {min_absmax = 1.0e-40 : f32} : (tensor<4x8xf32>) -> (tensor<4x8xf8E4M3FN>, tensor<4xf32>)
  return
}

// -----

// Above the i8 bound, below the f8E4M3FN one.
func.func @compress_min_absmax_f8(%k: tensor<8x16xbf16>, %s: tensor<8xf32>) {
  // expected-error @+1 {{min_absmax must be at least 5.26621e-36 (448 * 2^-126, so that every f8E4M3FN scale is a normal f32), got 2e-36}}
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64, min_absmax = 2.0e-36 : f32} : (tensor<8x16xbf16>, tensor<8xf32>) -> (tensor<2x16xf8E4M3FN>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @quantize_min_absmax_inf(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{min_absmax must be finite, got inf}}
  %q, %s = indexpool.quantize %x {min_absmax = 0x7F800000 : f32} : (tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<4xf32>)
  return
}
