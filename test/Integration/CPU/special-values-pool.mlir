// Special values in pool and compress on the CPU against the float64
// reference (docs/robustness.md, "Special values"): large logits over a
// small temperature, a tiny temperature with equal maxima, NaN / inf / -inf
// scores and keys, and compress rows that become NaN (huge keys overflow
// the rotation) or stay subnormal at the smallest min_absmax. Inputs come
// from Inputs/special_values.py; a few values are checked by hand.
// RUN: rm -rf %t && /usr/bin/python3 %S/../Inputs/special_values.py %t
// RUN: indexpool-run %s --function=large_channel --input=@%t/large.keys.npy --input=@%t/large.scores.npy --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=large_token --input=@%t/large.keys.npy --input=@%t/large.tscores.npy --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=tiny --input=@%t/tiny.keys.npy --input=@%t/tiny.scores.npy --verify --output=@%t/tiny.pooled.npy --output=@%t/tiny.weights.npy | FileCheck %s --check-prefix=TWO
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/tiny.pooled.npy pooled 0,3 4 | FileCheck %s --check-prefix=TINY
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/tiny.weights.npy w 0,1,3 | FileCheck %s --check-prefix=TINYW
// RUN: indexpool-run %s --function=nonfinite --input=@%t/nan.keys.npy --input=@%t/nan.scores.npy --verify --output=@%t/nan.pooled.npy --output=@%t/nan.weights.npy | FileCheck %s --check-prefix=TWO
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/nan.pooled.npy pooled 0,1,2,3 10 | FileCheck %s --check-prefix=NAN
// RUN: indexpool-run %s --function=compress_f8 --input=@%t/compress.keys.npy --input=@%t/compress.scores.npy --verify --output=@%t/c8.q.npy --output=@%t/c8.s.npy --output=@%t/c8.w.npy | FileCheck %s --check-prefix=THREE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/c8.q.npy q 1,2,3,5 4 | FileCheck %s --check-prefix=C8
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/c8.s.npy s 0,1,2,3,4,5 | FileCheck %s --check-prefix=C8S
// RUN: indexpool-run %s --function=compress_i8 --input=@%t/compress.keys.npy --input=@%t/compress.scores.npy --verify --output=@%t/ci8.q.npy --output=@%t/ci8.s.npy --output=@%t/ci8.w.npy | FileCheck %s --check-prefix=THREE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/ci8.q.npy q 1,2,5 4 | FileCheck %s --check-prefix=CI8

// TWO-COUNT-2: -> ok
// TWO-NOT: FAILED
// THREE-COUNT-3: -> ok
// THREE-NOT: FAILED

// Scores 100 + 0.01 N(0,1) over T = 0.01: exp(x / T) alone overflows.
func.func @large_channel(%keys: tensor<64x128xbf16>, %scores: tensor<64x128xf32>)
    -> (tensor<16x128xbf16>, tensor<16x4x128xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64, temperature = 0.01 : f32}
      : (tensor<64x128xbf16>, tensor<64x128xf32>) -> (tensor<16x128xbf16>, tensor<16x4x128xf32>)
  return %p, %w : tensor<16x128xbf16>, tensor<16x4x128xf32>
}

func.func @large_token(%keys: tensor<64x128xbf16>, %scores: tensor<64xf32>)
    -> (tensor<16x128xbf16>, tensor<16x4xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64, temperature = 0.01 : f32}
      : (tensor<64x128xbf16>, tensor<64xf32>) -> (tensor<16x128xbf16>, tensor<16x4xf32>)
  return %p, %w : tensor<16x128xbf16>, tensor<16x4xf32>
}

// T = 1e-37: dividing the logits first gives inf - inf = NaN. Group 0
// scores {100, 100, 99, 98}: (x - 100) / T = {0, 0, -1e37, -2e37} ->
// weights {1/2, 1/2, 0, 0} and keys 1.5 and 2.5 pool to 2. Group 1 {-5, 7,
// -inf, 6}: one-hot on slot 1. Group 3 all equal: 1/4 each of keys 1, 2,
// 3, 6 -> 3.
// TINY: pooled[0]: 2.0 2.0 2.0 2.0
// TINY: pooled[3]: 3.0 3.0 3.0 3.0
// TINYW: w[0]: 0.5 0.5 0.0 0.0
// TINYW: w[1]: 0.0 1.0 0.0 0.0
// TINYW: w[3]: 0.25 0.25 0.25 0.25
func.func @tiny(%keys: tensor<16x64xf32>, %scores: tensor<16xf32>)
    -> (tensor<4x64xf32>, tensor<4x4xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64, temperature = 1.0e-37 : f32}
      : (tensor<16x64xf32>, tensor<16xf32>) -> (tensor<4x64xf32>, tensor<4x4xf32>)
  return %p, %w : tensor<4x64xf32>, tensor<4x4xf32>
}

// Group 0 channel 5 (a NaN score), group 1 channel 7 (+inf: inf - inf),
// group 2 channel 9 (all -inf: -inf - -inf) are NaN; group 3 channel 3 has
// an inf key of weight 0 (0 * inf = NaN), channel 4 a -inf key of weight >
// 0 (-inf).
// NAN: pooled[0]: {{[-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+}} {{-?}}nan {{[-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+$}}
// NAN: pooled[1]: {{[-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+}} {{-?}}nan {{[-0-9.e]+ [-0-9.e]+$}}
// NAN: pooled[2]: {{[-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+}} {{-?}}nan{{$}}
// NAN: pooled[3]: {{[-0-9.e]+ [-0-9.e]+ [-0-9.e]+}} {{-?}}nan -inf {{[-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+ [-0-9.e]+$}}
func.func @nonfinite(%keys: tensor<16x64xf32>, %scores: tensor<16x64xf32>)
    -> (tensor<4x64xf32>, tensor<4x4x64xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<16x64xf32>, tensor<16x64xf32>) -> (tensor<4x64xf32>, tensor<4x4x64xf32>)
  return %p, %w : tensor<4x64xf32>, tensor<4x4x64xf32>
}

// min_absmax = 448 * 2^-126 (the least that keeps f8 scales normal).
// Groups 1 (a NaN key), 2 (an inf key), 3 (huge keys: the rotation
// overflows) and 5 (a channel of -inf scores) are NaN rows: scale NaN and
// every code the NaN code 0x7F (positive), or 0 for i8. Group 4 holds only
// subnormal keys: its scale is 2^-126 = 1.1754943508222875e-38 and its
// codes are not all 0.
// C8: q[1]: nan nan nan nan
// C8: q[2]: nan nan nan nan
// C8: q[3]: nan nan nan nan
// C8: q[5]: nan nan nan nan
// C8S: s[0]: {{[0-9]}}
// C8S-NEXT: s[1]: {{-?}}nan
// C8S-NEXT: s[2]: {{-?}}nan
// C8S-NEXT: s[3]: {{-?}}nan
// C8S-NEXT: s[4]: 1.1754943508222875e-38
// C8S-NEXT: s[5]: {{-?}}nan
// CI8: q[1]: 0 0 0 0
// CI8: q[2]: 0 0 0 0
// CI8: q[5]: 0 0 0 0
func.func @compress_f8(%keys: tensor<32x128xbf16>, %scores: tensor<32x128xf32>)
    -> (tensor<8x128xf8E4M3FN>, tensor<8xf32>, tensor<8x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate, pow2_scale, min_absmax = 5.26621469e-36 : f32}
      : (tensor<32x128xbf16>, tensor<32x128xf32>) -> (tensor<8x128xf8E4M3FN>, tensor<8xf32>, tensor<8x4x128xf32>)
  return %q, %s, %w : tensor<8x128xf8E4M3FN>, tensor<8xf32>, tensor<8x4x128xf32>
}

func.func @compress_i8(%keys: tensor<32x128xbf16>, %scores: tensor<32x128xf32>)
    -> (tensor<8x128xi8>, tensor<8xf32>, tensor<8x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, min_absmax = 5.26621469e-36 : f32}
      : (tensor<32x128xbf16>, tensor<32x128xf32>) -> (tensor<8x128xi8>, tensor<8xf32>, tensor<8x4x128xf32>)
  return %q, %s, %w : tensor<8x128xi8>, tensor<8xf32>, tensor<8x4x128xf32>
}
