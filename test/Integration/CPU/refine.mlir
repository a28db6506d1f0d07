// indexpool.refine on the CPU against the float64 reference: tokens equal
// except for near-tie swaps of candidates whose logits agree to 1e-5.
// Random candidates are token ids of [0, T), one in eight -1, duplicates by
// chance.
// RUN: indexpool-run %s --function=bf16_keys --random-inputs=1 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=fp8_scales --random-inputs=2 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=f32_k_eq_c --random-inputs=3 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=i8_dynamic --random-inputs=4 --input-shape=0:2x8x64 --input-shape=1:2x8 --input-shape=2:2x333 --input-shape=3:700x64 --input-shape=4:700 --verify | FileCheck %s --check-prefix=ONE
//
// C is checked at run time like topk's N: k <= C.
// RUN: not indexpool-run %s --function=i8_dynamic --random-inputs=4 --input-shape=0:2x8x64 --input-shape=1:2x8 --input-shape=2:2x99 --input-shape=3:700x64 --input-shape=4:700 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: indexpool.refine at {{.*}}refine.mlir:{{[0-9]+}}:{{[0-9]+}}: k must be at most C = 99 (the candidates of a row), got 100
//
// Worked out by hand (Inputs/refine_inputs.py): candidate t scores 1.6 * t,
// key row 2 is NaN; padding (-1, ids outside [0, 8), the i32 extremes) is
// NaN too, which ranks below every number and among NaNs by column; a
// duplicate is kept twice; k = C.
// RUN: rm -rf %t && /usr/bin/python3 %S/Inputs/refine_inputs.py %t
// RUN: indexpool-run %s --function=hand --input=@%t/hand.q.npy --input=@%t/hand.w.npy --input=@%t/hand.candidates.npy --input=@%t/hand.keys.npy --verify --output=@%t/hand.npy | FileCheck %s --check-prefix=ONE
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/hand.npy tokens 0,1 | FileCheck %s --check-prefix=HAND
// HAND: tokens[0]: 7 5 3 3 0 -1 -1 2
// HAND-NEXT: tokens[1]: 6 4 1 1 -1 -1 -1 -1
//
// With every token as a candidate, refine is topk(score(...)) exactly: its
// logits are score's bit for bit, and its tokens the topk's columns.
// RUN: indexpool-run %s --function=all_tokens --input=@%t/all.q.npy --input=@%t/all.w.npy --input=@%t/all.candidates.npy --input=@%t/all.keys.npy --verify --output=@%t/all.refine.npy | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_topk --input=@%t/all.q.npy --input=@%t/all.w.npy --input=@%t/all.keys.npy --output=@%t/all.topk.npy
// RUN: cmp %t/all.refine.npy %t/all.topk.npy
// RUN: indexpool-run %s --function=all_tokens_i8 --input=@%t/all.q.npy --input=@%t/all.w.npy --input=@%t/all.candidates.npy --input=@%t/all.codes.npy --input=@%t/all.scales.npy --output=@%t/all.refine.i8.npy
// RUN: indexpool-run %s --function=score_topk_i8 --input=@%t/all.q.npy --input=@%t/all.w.npy --input=@%t/all.codes.npy --input=@%t/all.scales.npy --output=@%t/all.topk.i8.npy
// RUN: cmp %t/all.refine.i8.npy %t/all.topk.i8.npy

// ONE: result #0 (tensor<{{.*}}xi32>): {{.*}} -> ok
// ONE-NOT: FAILED

func.func @bf16_keys(%q: tensor<2x16x64xbf16>, %w: tensor<2x16xf32>, %c: tensor<2x300xi32>,
                     %k: tensor<1000x64xbf16>) -> tensor<2x64xi32> {
  %t = indexpool.refine %q, %w, %c, %k {k = 64 : i64}
      : (tensor<2x16x64xbf16>, tensor<2x16xf32>, tensor<2x300xi32>, tensor<1000x64xbf16>) -> tensor<2x64xi32>
  return %t : tensor<2x64xi32>
}

// The two-stage shape: 4 * 512 candidates (select's tokens of 512 pools of
// 4) re-scored against FP8 token keys with their scales.
func.func @fp8_scales(%q: tensor<3x64x128xbf16>, %w: tensor<3x64xf32>, %c: tensor<3x2048xi32>,
                      %k: tensor<8192x128xf8E4M3FN>, %s: tensor<8192xf32>) -> tensor<3x512xi32> {
  %t = indexpool.refine %q, %w, %c, %k scales(%s) {k = 512 : i64}
      : (tensor<3x64x128xbf16>, tensor<3x64xf32>, tensor<3x2048xi32>, tensor<8192x128xf8E4M3FN>,
         tensor<8192xf32>) -> tensor<3x512xi32>
  return %t : tensor<3x512xi32>
}

// k = C: every candidate comes back, padding as -1 after the numbers; a C
// that is not a multiple of the rows scored at a time.
func.func @f32_k_eq_c(%q: tensor<4x4x32xf32>, %w: tensor<4x4xf32>, %c: tensor<4x37xi32>,
                      %k: tensor<50x32xf32>) -> tensor<4x37xi32> {
  %t = indexpool.refine %q, %w, %c, %k {k = 37 : i64}
      : (tensor<4x4x32xf32>, tensor<4x4xf32>, tensor<4x37xi32>, tensor<50x32xf32>) -> tensor<4x37xi32>
  return %t : tensor<4x37xi32>
}

func.func @i8_dynamic(%q: tensor<?x?x?xf32>, %w: tensor<?x?xf32>, %c: tensor<?x?xi32>, %k: tensor<?x?xi8>,
                      %s: tensor<?xf32>) -> tensor<?x100xi32> {
  %t = indexpool.refine %q, %w, %c, %k scales(%s) {k = 100 : i64}
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x100xi32>
  return %t : tensor<?x100xi32>
}

func.func @hand(%q: tensor<2x1x16xf32>, %w: tensor<2x1xf32>, %c: tensor<2x8xi32>, %k: tensor<8x16xf32>)
    -> tensor<2x8xi32> {
  %t = indexpool.refine %q, %w, %c, %k {k = 8 : i64}
      : (tensor<2x1x16xf32>, tensor<2x1xf32>, tensor<2x8xi32>, tensor<8x16xf32>) -> tensor<2x8xi32>
  return %t : tensor<2x8xi32>
}

func.func @all_tokens(%q: tensor<3x8x64xbf16>, %w: tensor<3x8xf32>, %c: tensor<3x500xi32>,
                      %k: tensor<500x64xbf16>) -> tensor<3x100xi32> {
  %t = indexpool.refine %q, %w, %c, %k {k = 100 : i64}
      : (tensor<3x8x64xbf16>, tensor<3x8xf32>, tensor<3x500xi32>, tensor<500x64xbf16>) -> tensor<3x100xi32>
  return %t : tensor<3x100xi32>
}

func.func @score_topk(%q: tensor<3x8x64xbf16>, %w: tensor<3x8xf32>, %k: tensor<500x64xbf16>) -> tensor<3x100xi32> {
  %l = indexpool.score %q, %w, %k : (tensor<3x8x64xbf16>, tensor<3x8xf32>, tensor<500x64xbf16>) -> tensor<3x500xf32>
  %v, %i = indexpool.topk %l {k = 100 : i64} : (tensor<3x500xf32>) -> (tensor<3x100xf32>, tensor<3x100xi32>)
  return %i : tensor<3x100xi32>
}

func.func @all_tokens_i8(%q: tensor<3x8x64xbf16>, %w: tensor<3x8xf32>, %c: tensor<3x500xi32>,
                         %k: tensor<500x64xi8>, %s: tensor<500xf32>) -> tensor<3x100xi32> {
  %t = indexpool.refine %q, %w, %c, %k scales(%s) {k = 100 : i64}
      : (tensor<3x8x64xbf16>, tensor<3x8xf32>, tensor<3x500xi32>, tensor<500x64xi8>, tensor<500xf32>)
        -> tensor<3x100xi32>
  return %t : tensor<3x100xi32>
}

func.func @score_topk_i8(%q: tensor<3x8x64xbf16>, %w: tensor<3x8xf32>, %k: tensor<500x64xi8>,
                         %s: tensor<500xf32>) -> tensor<3x100xi32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<3x8x64xbf16>, tensor<3x8xf32>, tensor<500x64xi8>, tensor<500xf32>) -> tensor<3x500xf32>
  %v, %i = indexpool.topk %l {k = 100 : i64} : (tensor<3x500xf32>) -> (tensor<3x100xf32>, tensor<3x100xi32>)
  return %i : tensor<3x100xi32>
}
