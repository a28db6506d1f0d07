// indexpool.refine as its GPU kernels (a gather-score through the score
// kernel, the topk kernel, a take kernel), run on CPU threads by the GPU
// emulator and checked against the float64 reference: tokens equal except
// for near-tie swaps. Random candidates hold padding (-1) and duplicates;
// sm_90 and sm_80 (the score kernel's loads do not depend on the chip, the
// launch limits do).
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=1 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=2 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s
// RUN: indexpool-run %S/../CPU/refine.mlir --function=bf16_keys --random-inputs=3 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s
// RUN: indexpool-run %S/../CPU/refine.mlir --function=f32_k_eq_c --random-inputs=4 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s
// RUN: indexpool-run %S/../CPU/refine.mlir --function=i8_dynamic --random-inputs=5 --input-shape=0:2x8x64 --input-shape=1:2x8 --input-shape=2:2x333 --input-shape=3:700x64 --input-shape=4:700 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s
// RUN: indexpool-run %s --function=two_head_blocks --random-inputs=6 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s
//
// Padding and NaN keys by hand, and with every token as a candidate the
// tokens equal the score and topk kernels' indices bit for bit (the same
// score kernel arithmetic).
// RUN: rm -rf %t && /usr/bin/python3 %S/../CPU/Inputs/refine_inputs.py %t
// RUN: indexpool-run %S/../CPU/refine.mlir --function=hand --input=@%t/hand.q.npy --input=@%t/hand.w.npy --input=@%t/hand.candidates.npy --input=@%t/hand.keys.npy --device=gpu-emulator --chip=sm_90 --verify --output=@%t/hand.npy | FileCheck %s
// RUN: /usr/bin/python3 %S/../Inputs/print_npy.py %t/hand.npy tokens 0,1 | FileCheck %s --check-prefix=HAND
// HAND: tokens[0]: 7 5 3 3 0 -1 -1 2
// HAND-NEXT: tokens[1]: 6 4 1 1 -1 -1 -1 -1
// RUN: indexpool-run %S/../CPU/refine.mlir --function=all_tokens_i8 --input=@%t/all.q.npy --input=@%t/all.w.npy --input=@%t/all.candidates.npy --input=@%t/all.codes.npy --input=@%t/all.scales.npy --device=gpu-emulator --chip=sm_80 --output=@%t/refine.npy
// RUN: indexpool-run %S/../CPU/refine.mlir --function=score_topk_i8 --input=@%t/all.q.npy --input=@%t/all.w.npy --input=@%t/all.codes.npy --input=@%t/all.scales.npy --device=gpu-emulator --chip=sm_80 --output=@%t/topk.npy
// RUN: cmp %t/refine.npy %t/topk.npy

// CHECK: result #0 {{.*}} -> ok
// CHECK-NOT: FAILED

// H = 128: the score kernel's two blocks of 64 heads; C not a multiple of
// the block's rows.
func.func @two_head_blocks(%q: tensor<2x128x64xbf16>, %w: tensor<2x128xf32>, %c: tensor<2x777xi32>,
                           %k: tensor<3000x64xbf16>) -> tensor<2x200xi32> {
  %t = indexpool.refine %q, %w, %c, %k {k = 200 : i64}
      : (tensor<2x128x64xbf16>, tensor<2x128xf32>, tensor<2x777xi32>, tensor<3000x64xbf16>) -> tensor<2x200xi32>
  return %t : tensor<2x200xi32>
}
