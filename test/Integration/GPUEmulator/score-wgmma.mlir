// The tensor-core score on sm_90a: warpgroup MMAs (nvvm.wgmma.mma_async,
// both operands in shared memory, K-major without swizzle) run by the GPU
// emulator, which reads each operand through its descriptor (start address,
// leading and stride byte offsets) as the hardware does, and checked
// against the float64 reference. A kernel whose shared-memory layout and
// descriptors disagree, or whose epilogue takes the wrong accumulator rows,
// fails these checks.
// Decode shapes (M = 1: the query row copied once per block), several query
// rows (the key tile kept in shared memory for all of them), FP8 keys with
// scales and bf16 keys, an FP8 query (m64nNk32 on e4m3), H = 16 and D = 16
// (one MMA per tile), H = 128 (one warpgroup per block: two would not fit
// 48 KiB; every shape the tensor-core score takes fits one), a dynamic M,
// key counts that are not a multiple of 64.
// RUN: indexpool-run %s --function=decode --random-inputs=1 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=one_load_per_row --random-inputs=15 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=wide_heads --random-inputs=2 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/score-mma.mlir --function=score_fp8 --random-inputs=3 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/score-mma.mlir --function=score_bf16 --random-inputs=4 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/score-mma.mlir --function=select_fp8 --random-inputs=5 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/score-mma.mlir --function=score_tiles --random-inputs=6 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/score-mma.mlir --function=score_narrow --random-inputs=7 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/score-mma.mlir --function=score_dynamic --random-inputs=8 --input-shape=0:3x32x96 --input-shape=1:3x32 --input-shape=2:45x96 --input-shape=3:45 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/score-mma.mlir --function=score_fp8_query --random-inputs=9 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/score-mma.mlir --function=score_fp8_query_d96 --random-inputs=10 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
//
// refine's candidates and select_paged's pages (rows only 4-byte aligned:
// 4-byte loads) are copied to shared memory row by row, padding as zeros.
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=12 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/mma-ops.mlir --function=select_paged_fp8 --random-inputs=13 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/mma-ops.mlir --function=select_paged_odd --random-inputs=5 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/mma-ops.mlir --function=select_paged_fp8_query --random-inputs=14 --device=gpu-emulator --chip=sm_90a --tensor-cores --verify --check-bounds | FileCheck %s --check-prefix=ONE
// refine over every token equals topk(score) bit for bit on sm_90a too.
// RUN: rm -rf %t && /usr/bin/python3 %S/Inputs/mma_inputs.py %t
// RUN: indexpool-run %S/mma-ops.mlir --function=refine_all --input=@%t/q.npy --input=@%t/w.npy --input=@%t/candidates.npy --input=@%t/keys.npy --device=gpu-emulator --chip=sm_90a --tensor-cores --output=@%t/refine.npy
// RUN: indexpool-run %S/mma-ops.mlir --function=score_topk --input=@%t/q.npy --input=@%t/w.npy --input=@%t/keys.npy --device=gpu-emulator --chip=sm_90a --tensor-cores --output=@%t/topk.npy
// RUN: cmp %t/refine.npy %t/topk.npy
// Every one of the 256 e4m3 codes as keys (NaN, subnormals, +-448) through
// the decode into shared memory, in both halves of a pair.
// RUN: /usr/bin/python3 %S/../Inputs/special_values.py %t
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_fp8_codes --input=@%t/codes.q0.npy --input=@%t/codes.w.npy --input=@%t/codes.keys.npy --input=@%t/codes.scales.npy --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/special-values-score.mlir --function=score_fp8_codes --input=@%t/codes.q1.npy --input=@%t/codes.w.npy --input=@%t/codes.keys.npy --input=@%t/codes.scales.npy --device=gpu-emulator --chip=sm_90a --tensor-cores --verify | FileCheck %s --check-prefix=ONE
//
// Which kernel: wgmma on sm_90a only (sm_90 and sm_100 keep mma.sync).
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels="chip=sm_90a tensor-cores=true" | FileCheck %s --check-prefix=WGMMA
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels="chip=sm_90 tensor-cores=true" | FileCheck %s --check-prefix=SYNC
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels="chip=sm_100 tensor-cores=true" | FileCheck %s --check-prefix=SYNC

// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED

// WGMMA-LABEL: func.func @decode
// WGMMA-NOT: nvvm.mma.sync
// WGMMA: nvvm.fence.proxy
// WGMMA: gpu.barrier
// WGMMA: nvvm.wgmma.fence.aligned
// WGMMA-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// WGMMA: nvvm.wgmma.commit.group.sync.aligned
// WGMMA: nvvm.wgmma.wait.group.sync.aligned 0
// WGMMA-LABEL: func.func @wide_heads
// WGMMA: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
// SYNC-NOT: wgmma
// SYNC-LABEL: func.func @decode
// SYNC: nvvm.mma.sync
// SYNC-NOT: wgmma

// Decode: one query row, 300 FP8 keys (4 tiles of 64 rows, the last
// partial), scales.
func.func @decode(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                  %k: tensor<300x128xf8E4M3FN>, %s: tensor<300xf32>) -> tensor<1x300xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<300x128xf8E4M3FN>, tensor<300xf32>) -> tensor<1x300xf32>
  return %l : tensor<1x300xf32>
}

// H = 128, D = 128: 48 KiB with one warpgroup, so one per block.
func.func @wide_heads(%q: tensor<2x128x128xbf16>, %w: tensor<2x128xf32>,
                      %k: tensor<150x128xf8E4M3FN>, %s: tensor<150xf32>) -> tensor<2x150xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<2x128x128xbf16>, tensor<2x128xf32>, tensor<150x128xf8E4M3FN>, tensor<150xf32>) -> tensor<2x150xf32>
  return %l : tensor<2x150xf32>
}

// D = 16 FP8 keys: one 16-byte load per row, so half of the threads that
// copy a row have none (an odd number of loads per row).
func.func @one_load_per_row(%q: tensor<2x16x16xbf16>, %w: tensor<2x16xf32>,
                            %k: tensor<70x16xf8E4M3FN>, %s: tensor<70xf32>) -> tensor<2x70xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<2x16x16xbf16>, tensor<2x16xf32>, tensor<70x16xf8E4M3FN>, tensor<70xf32>) -> tensor<2x70xf32>
  return %l : tensor<2x70xf32>
}
