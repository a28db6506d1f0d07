// refine's gather-score and select_paged's score on the tensor cores
// (--tensor-cores), run by the GPU emulator and checked against the float64
// reference: candidates with padding, ids past T and duplicates (random
// inputs), pages of FP8 codes through block tables (scales after or before
// the codes; 5 entries of 68 bytes per page: rows only 4-byte aligned),
// on sm_80 (software FP8 decoding), sm_89 / sm_90 (cvt.rn.f16x2.e4m3x2) and
// an FP8 query (e4m3 MMA) on sm_90.
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=1 --device=gpu-emulator --chip=sm_90 --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=2 --device=gpu-emulator --chip=sm_80 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_paged_fp8 --random-inputs=20 --device=gpu-emulator --chip=sm_90 --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
// Pages of random bytes can hold scales near 1e38: seed 3's reach f32's
// overflow in the head sums, where the tensor cores' summation order gives
// other infinities than the reference's (docs/robustness.md, "f32
// overflow"); the CUDA-core score follows the reference's order and fuses
// the head terms as it models them, so it matches there.
// RUN: indexpool-run %s --function=select_paged_fp8 --random-inputs=3 --device=gpu-emulator --chip=sm_90 --tensor-cores=false --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_paged_fp8 --random-inputs=3 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_paged_fp8 --random-inputs=4 --device=gpu-emulator --chip=sm_80 --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_paged_odd --random-inputs=5 --device=gpu-emulator --chip=sm_89 --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_paged_fp8_query --random-inputs=6 --device=gpu-emulator --chip=sm_90 --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
// An FP8 query decoded to bf16 once, then the bf16 MMA, on sm_80 and sm_86
// (no e4m3 MMA; the software decoder) as sm_90 above (cvt.rn.f16x2.e4m3x2);
// sm_89 takes the e4m3 MMA as it is (seed 24: seed 23's random page bytes
// hold scales that take logits to 1.4e38, where the MMA's summation order
// meets f32's overflow before the reference's, docs/robustness.md).
// RUN: indexpool-run %s --function=select_paged_fp8_query --random-inputs=21 --device=gpu-emulator --chip=sm_80 --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_paged_fp8_query --random-inputs=22 --device=gpu-emulator --chip=sm_86 --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_paged_fp8_query --random-inputs=24 --device=gpu-emulator --chip=sm_89 --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
//
// On the tensor cores refine still equals topk(score) bit for bit: refine
// over every token, in order, against score -> topk, both with
// --tensor-cores (the same MMAs in the same order for every logit).
// RUN: rm -rf %t && /usr/bin/python3 %S/Inputs/mma_inputs.py %t
// RUN: indexpool-run %s --function=refine_all --input=@%t/q.npy --input=@%t/w.npy --input=@%t/candidates.npy --input=@%t/keys.npy --device=gpu-emulator --chip=sm_90 --tensor-cores --output=@%t/refine.npy
// RUN: indexpool-run %s --function=score_topk --input=@%t/q.npy --input=@%t/w.npy --input=@%t/keys.npy --device=gpu-emulator --chip=sm_90 --tensor-cores --output=@%t/topk.npy
// RUN: cmp %t/refine.npy %t/topk.npy
//
// The kernels are the MMA ones.
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels="chip=sm_90 tensor-cores=true" | FileCheck %s --check-prefix=MMA
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels="chip=sm_89 tensor-cores=true" | FileCheck %s --check-prefix=E4M3
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels="chip=sm_80 tensor-cores=true" | FileCheck %s --check-prefix=DECODE

// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED

// MMA-LABEL: func.func @select_paged_fp8
// MMA: nvvm.mma.sync
// MMA-LABEL: func.func @select_paged_odd
// MMA: nvvm.mma.sync
// MMA-LABEL: func.func @select_paged_fp8_query
// MMA: memref.alloc({{.*}}) {alignment = 64 : i64} : memref<?x16x64xbf16>
// MMA: gpu.launch
// MMA: nvvm.convert.f8x2.to.f16x2
// MMA: vector.store {{.*}} : memref<?x16x64xbf16>, vector<8xbf16>
// MMA-NOT: e4m3.e4m3
// MMA: nvvm.mma.sync
// MMA-NOT: e4m3.e4m3
// E4M3-LABEL: func.func @select_paged_fp8_query
// E4M3-NOT: xbf16>
// E4M3: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"
// E4M3-LABEL: func.func @refine_all
// DECODE-LABEL: func.func @select_paged_fp8_query
// DECODE: memref<?x16x64xbf16>
// DECODE-NOT: nvvm.convert.f8x2
// DECODE-NOT: e4m3.e4m3
// DECODE: nvvm.mma.sync
// DECODE-LABEL: func.func @refine_all
// MMA-LABEL: func.func @refine_all
// MMA: nvvm.mma.sync
// MMA-LABEL: func.func @score_topk
// MMA: nvvm.mma.sync

// 64 entries of 64 + 4 bytes per page.
func.func @select_paged_fp8(%q: tensor<3x2x16x64xbf16>, %w: tensor<3x2x16xf32>,
    %pages: tensor<12x4352xi8>, %table: tensor<3x4xi32>,
    %len: tensor<3x2xi32>) -> tensor<3x2x35xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 8 : i64, pool_size = 4 : i64}
      : (tensor<3x2x16x64xbf16>, tensor<3x2x16xf32>, tensor<12x4352xi8>,
         tensor<3x4xi32>, tensor<3x2xi32>) -> tensor<3x2x35xi32>
  return %t : tensor<3x2x35xi32>
}

// 5 entries of 64 + 4 bytes per page, scales first (20 bytes).
func.func @select_paged_odd(%q: tensor<2x3x32x64xbf16>, %w: tensor<2x3x32xf32>,
    %pages: tensor<30x340xi8>, %table: tensor<2x12xi32>,
    %len: tensor<2x3xi32>) -> tensor<2x3x11xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 5 : i64, pool_size = 2 : i64, page_entries = 5 : i64,
                     scales_first}
      : (tensor<2x3x32x64xbf16>, tensor<2x3x32xf32>, tensor<30x340xi8>,
         tensor<2x12xi32>, tensor<2x3xi32>) -> tensor<2x3x11xi32>
  return %t : tensor<2x3x11xi32>
}

func.func @select_paged_fp8_query(%q: tensor<3x2x16x64xf8E4M3FN>, %w: tensor<3x2x16xf32>,
    %pages: tensor<12x4352xi8>, %table: tensor<3x4xi32>,
    %len: tensor<3x2xi32>) -> tensor<3x2x35xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 8 : i64, pool_size = 4 : i64}
      : (tensor<3x2x16x64xf8E4M3FN>, tensor<3x2x16xf32>, tensor<12x4352xi8>,
         tensor<3x4xi32>, tensor<3x2xi32>) -> tensor<3x2x35xi32>
  return %t : tensor<3x2x35xi32>
}

func.func @refine_all(%q: tensor<3x16x64xbf16>, %w: tensor<3x16xf32>, %c: tensor<3x500xi32>,
                      %k: tensor<500x64xbf16>) -> tensor<3x100xi32> {
  %t = indexpool.refine %q, %w, %c, %k {k = 100 : i64}
      : (tensor<3x16x64xbf16>, tensor<3x16xf32>, tensor<3x500xi32>, tensor<500x64xbf16>) -> tensor<3x100xi32>
  return %t : tensor<3x100xi32>
}

func.func @score_topk(%q: tensor<3x16x64xbf16>, %w: tensor<3x16xf32>, %k: tensor<500x64xbf16>) -> tensor<3x100xi32> {
  %l = indexpool.score %q, %w, %k : (tensor<3x16x64xbf16>, tensor<3x16xf32>, tensor<500x64xbf16>) -> tensor<3x500xf32>
  %v, %i = indexpool.topk %l {k = 100 : i64} : (tensor<3x500xf32>) -> (tensor<3x100xf32>, tensor<3x100xi32>)
  return %i : tensor<3x100xi32>
}
