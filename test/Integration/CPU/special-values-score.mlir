// f32 overflow, NaN and infinities in hadamard and score on the CPU against
// the float64 reference, which makes every intermediate that overflows f32
// in the kernels infinite too (docs/robustness.md, "Special values").
// Inputs come from Inputs/special_values.py; a few values are checked by
// hand.
// RUN: rm -rf %t && /usr/bin/python3 %S/../Inputs/special_values.py %t
// RUN: indexpool-run %s --function=hadamard_f32 --input=@%t/hadamard.x.npy --verify --output=@%t/h.npy | FileCheck %s --check-prefix=ONE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/h.npy y 0 4 | FileCheck %s --check-prefix=HAD
// RUN: indexpool-run %s --function=hadamard_bf16 --input=@%t/hadamard.x.npy --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_f32 --input=@%t/score.q.npy --input=@%t/score.w.npy --input=@%t/score.keys.npy --input=@%t/score.scales.npy --verify --output=@%t/l.npy | FileCheck %s --check-prefix=ONE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/l.npy logits 0 7 | FileCheck %s --check-prefix=SCORE
// RUN: indexpool-run %s --function=score_fused --input=@%t/fused.q.npy --input=@%t/fused.w.npy --input=@%t/fused.keys.npy --verify --output=@%t/fused.npy | FileCheck %s --check-prefix=ONE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/fused.npy logits 0 | FileCheck %s --check-prefix=FUSED
// RUN: indexpool-run %s --function=score_fp8_codes --input=@%t/codes.q0.npy --input=@%t/codes.w.npy --input=@%t/codes.keys.npy --input=@%t/codes.scales.npy --verify | FileCheck %s --check-prefix=ONE

// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED

// Row 0 starts a, a, -a, -a (a = 1.5 * 2^127): the butterflies h = 1, 2
// give NaN, 0, inf, 0 over those four (inf + -inf, 0, inf - -inf, 0), and
// the later stages keep the NaN at 0 and the inf at 2 (x + NaN, inf +
// finite). f32 results keep whatever sign a NaN gets (only narrow formats
// store the canonical NaN), hence "-?nan".
// HAD: y[0]: {{-?}}nan {{[-0-9.e]+}} inf {{[-0-9.e]+$}}
func.func @hadamard_f32(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %y = indexpool.hadamard %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

func.func @hadamard_bf16(%x: tensor<4x64xbf16>) -> tensor<4x64xbf16> {
  %y = indexpool.hadamard %x : (tensor<4x64xbf16>) -> tensor<4x64xbf16>
  return %y : tensor<4x64xbf16>
}

// w = {0.75, 0.5}, queries positive. Key 0 holds a NaN: relu(NaN) = NaN.
// Key 1 a +inf: inf. Key 2 is all -0: relu(+-0) = +0, logit 0. Key 3 is
// all 1e38: both dots overflow to inf. Key 4 is all 1e37: each dot
// (~6e38) overflows only as a sum, then times the scale 2^-10 stays inf.
// Key 5 has scale NaN. Key 6 is all -inf: relu(-inf) = 0.
// SCORE: logits[0]: {{-?}}nan inf 0.0 inf inf {{-?}}nan 0.0
func.func @score_f32(%q: tensor<1x2x64xf32>, %w: tensor<1x2xf32>, %k: tensor<64x64xf32>, %s: tensor<64xf32>)
    -> tensor<1x64xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x2x64xf32>, tensor<1x2xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<1x64xf32>
  return %l : tensor<1x64xf32>
}

// The head sum is fused (fma(w, relu, logit), heads in order): -2 x 2e38
// alone would be -inf, added to 3e38 it is -1e38; the reference models the
// same (Inputs/special_values.py, fused_head_inputs).
// FUSED: logits[0]: -9.9999{{[0-9]+}}e+37 -9.9999{{[0-9]+}}e+37 3.0000000{{[0-9]+}}e+38
func.func @score_fused(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<3x16xf32>)
    -> tensor<1x3xf32> {
  %l = indexpool.score %q, %w, %k
      : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<3x16xf32>) -> tensor<1x3xf32>
  return %l : tensor<1x3xf32>
}

// Every e4m3 code as a key value (Inputs/special_values.py,
// fp8_code_inputs): the logits follow the code in one channel, which the
// query selects (codes.q0, .q1, .q29). The GPU emulator runs it through the
// tensor cores' FP8 decoders (../GPUEmulator/special-values.mlir).
func.func @score_fp8_codes(%q: tensor<1x16x32xbf16>, %w: tensor<1x16xf32>, %k: tensor<256x32xf8E4M3FN>,
                           %s: tensor<256xf32>) -> tensor<1x256xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x16x32xbf16>, tensor<1x16xf32>, tensor<256x32xf8E4M3FN>, tensor<256xf32>) -> tensor<1x256xf32>
  return %l : tensor<1x256xf32>
}
