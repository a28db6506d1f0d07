// The tensor-core score kernel (--tensor-cores: nvvm.mma.sync m16n8k16,
// bf16 A and B, f32 accumulators) run by the GPU emulator on sm_80, sm_90
// and sm_120 and checked against the float64 reference: FP8 keys with
// scales and bf16 keys, H = 64 (4 head tiles), D = 128 (8 k-steps), key
// counts that are not a multiple of 8 (a masked tail in the last warp's
// tile), score and select's score part.
// RUN: indexpool-run %s --function=score_fp8 --random-inputs=1 --device=gpu-emulator --chip=sm_80 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_fp8 --random-inputs=2 --device=gpu-emulator --chip=sm_90 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_fp8 --random-inputs=3 --device=gpu-emulator --chip=sm_120 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_bf16 --random-inputs=4 --device=gpu-emulator --chip=sm_90 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_fp8 --random-inputs=5 --device=gpu-emulator --chip=sm_90 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_bf16 --random-inputs=6 --device=gpu-emulator --chip=sm_120 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_fp8 --random-inputs=7 --device=gpu-emulator --chip=sm_80 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
//
// The kernel is there only with tensor-cores, and only for the shapes it
// takes: an f32 query keeps the CUDA-core kernel (shared memory, no MMA).
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels="chip=sm_90 tensor-cores=true" | FileCheck %s --check-prefix=MMA
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels="chip=sm_90" | FileCheck %s --check-prefix=NOMMA
//
// The emulator refuses an MMA it does not know, in one error.
// RUN: not indexpool-opt %s --indexpool-emulate-gpu-kernels 2>&1 | FileCheck %s --check-prefix=REFUSE
// And --tensor-cores is a GPU option.
// RUN: not indexpool-run %s --function=score_fp8 --random-inputs=1 --tensor-cores 2>&1 | FileCheck %s --check-prefix=CPU

// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED

// MMA-LABEL: func.func @score_fp8
// MMA: gpu.launch
// MMA-COUNT-4: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// MMA: gpu.shuffle xor
// MMA-LABEL: func.func @score_bf16
// MMA: nvvm.mma.sync
// MMA-LABEL: func.func @select_fp8
// MMA: nvvm.mma.sync
// MMA-LABEL: func.func @score_f32_query
// MMA-NOT: nvvm.mma.sync
// MMA: gpu.launch
// MMA-NOT: nvvm.mma.sync
// MMA-LABEL: func.func @bad_mma
// NOMMA-NOT: nvvm.mma.sync
// NOMMA-LABEL: func.func @bad_mma

// REFUSE: error: 'nvvm.mma.sync' op the GPU emulator handles only m16n8k16 MMAs of row-major bf16 A (4 x i32) and column-major bf16 B (2 x i32) with f32 accumulators (4 x f32)
// CPU: indexpool-run: error: --tensor-cores only applies with --device=cuda or gpu-emulator

// Two query rows; 203 keys: 25 whole tiles of 8 and 3 rows.
func.func @score_fp8(%q: tensor<2x64x128xbf16>, %w: tensor<2x64xf32>,
                     %k: tensor<203x128xf8E4M3FN>, %s: tensor<203xf32>) -> tensor<2x203xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<2x64x128xbf16>, tensor<2x64xf32>, tensor<203x128xf8E4M3FN>, tensor<203xf32>) -> tensor<2x203xf32>
  return %l : tensor<2x203xf32>
}

func.func @score_bf16(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                      %k: tensor<117x128xbf16>) -> tensor<1x117xf32> {
  %l = indexpool.score %q, %w, %k
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<117x128xbf16>) -> tensor<1x117xf32>
  return %l : tensor<1x117xf32>
}

// k = 16 pools of 4 among 333 keys.
func.func @select_fp8(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %k: tensor<333x128xf8E4M3FN>,
                      %s: tensor<333xf32>) -> tensor<1x64xi32> {
  %t = indexpool.select %q, %w, %k scales(%s) {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<333x128xf8E4M3FN>, tensor<333xf32>) -> tensor<1x64xi32>
  return %t : tensor<1x64xi32>
}

func.func @select_bf16(%q: tensor<2x64x128xbf16>, %w: tensor<2x64xf32>,
                       %k: tensor<150x128xbf16>) -> tensor<2x32xi32> {
  %t = indexpool.select %q, %w, %k {k = 16 : i64, pool_size = 2 : i64}
      : (tensor<2x64x128xbf16>, tensor<2x64xf32>, tensor<150x128xbf16>) -> tensor<2x32xi32>
  return %t : tensor<2x32xi32>
}

func.func @score_f32_query(%q: tensor<1x64x128xf32>, %w: tensor<1x64xf32>,
                           %k: tensor<100x128xbf16>) -> tensor<1x100xf32> {
  %l = indexpool.score %q, %w, %k
      : (tensor<1x64x128xf32>, tensor<1x64xf32>, tensor<100x128xbf16>) -> tensor<1x100xf32>
  return %l : tensor<1x100xf32>
}

// An f16 mma.sync, which the emulator does not know.
func.func @bad_mma(%out: memref<32x4xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %a = arith.constant dense<1.0> : vector<2xf16>
    %c = arith.constant 0.0 : f32
    %d = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
         shape = #nvvm.shape<m = 16, n = 8, k = 16>}
        : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %v = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %v, %out[%tx, %c1] : memref<32x4xf32>
    gpu.terminator
  }
  return
}
