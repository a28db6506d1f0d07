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
// Several query rows (each warp's key fragments held in registers, every
// query row streamed past them): M = 5 with H = 64 on sm_89 (FP8 keys by
// cvt.rn.f16x2.e4m3x2) and sm_86 (software decoder); a dynamic M (3 and
// 11 at run time) with H = 32 and D = 96 (6 k-steps: one 4-byte FP8 load
// per step, not 16 bytes per 4 steps; one key tile per warp); H = 16,
// D = 16 (one k-step, 4 key tiles per warp).
// RUN: indexpool-run %s --function=score_tiles --random-inputs=8 --device=gpu-emulator --chip=sm_89 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_tiles --random-inputs=9 --device=gpu-emulator --chip=sm_86 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_dynamic --random-inputs=10 --input-shape=0:3x32x96 --input-shape=1:3x32 --input-shape=2:45x96 --input-shape=3:45 --device=gpu-emulator --chip=sm_90 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_dynamic --random-inputs=11 --input-shape=0:11x32x96 --input-shape=1:11x32 --input-shape=2:19x96 --input-shape=3:19 --device=gpu-emulator --chip=sm_120 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_narrow --random-inputs=12 --device=gpu-emulator --chip=sm_89 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// An FP8 query with FP8 keys: mma.sync m16n8k32 on e4m3 (the LLVM
// intrinsic) from sm_89, 8 channels per lane and k-step; D = 128 (2 k-steps
// per 16-byte load) and D = 96 (3 k-steps, 8 bytes each), where the chip
// runs it natively (sm_89, sm_120). On sm_80, sm_86 and sm_90 the query is
// decoded to bf16 once, by a kernel of its own (software decoder before
// sm_89), and takes the bf16 MMA.
// RUN: indexpool-run %s --function=score_fp8_query --random-inputs=14 --device=gpu-emulator --chip=sm_89 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_fp8_query --random-inputs=15 --device=gpu-emulator --chip=sm_90 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_fp8_query --random-inputs=16 --device=gpu-emulator --chip=sm_80 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_fp8_query_d96 --random-inputs=17 --device=gpu-emulator --chip=sm_120 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_fp8_query_d96 --random-inputs=18 --device=gpu-emulator --chip=sm_86 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
// The launch's vector_bytes sets the key bytes per load: 8 (2 FP8 k-steps
// per load, 128 threads, tiled grid) on sm_90.
// RUN: indexpool-run %s --function=score_launch --random-inputs=13 --device=gpu-emulator --chip=sm_90 --tensor-cores --verify | FileCheck %s --check-prefix=ONE
//
// The kernel is there with tensor-cores (the default), and only for the shapes it
// takes: an f32 query keeps the CUDA-core kernel (shared memory, no MMA).
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels="chip=sm_90 tensor-cores=true" | FileCheck %s --check-prefix=MMA
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels="chip=sm_90 tensor-cores=false" | FileCheck %s --check-prefix=NOMMA
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
// MMA-LABEL: func.func @score_tiles
// MMA: nvvm.convert.f8x2.to.f16x2
// MMA: nvvm.mma.sync
// MMA-LABEL: func.func @score_fp8_query
// MMA: memref.alloc({{.*}}) {alignment = 64 : i64} : memref<?x64x128xbf16>
// MMA: nvvm.convert.f8x2.to.f16x2
// MMA: vector.store {{.*}} : memref<?x64x128xbf16>, vector<8xbf16>
// MMA-NOT: e4m3.e4m3
// MMA: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
// MMA-NOT: e4m3.e4m3
// (sm_89's e4m3 MMA is checked in test/Target/score-mma.mlir.)
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

func.func @score_tiles(%q: tensor<5x64x64xbf16>, %w: tensor<5x64xf32>,
                       %k: tensor<77x64xf8E4M3FN>, %s: tensor<77xf32>) -> tensor<5x77xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<5x64x64xbf16>, tensor<5x64xf32>, tensor<77x64xf8E4M3FN>, tensor<77xf32>) -> tensor<5x77xf32>
  return %l : tensor<5x77xf32>
}

func.func @score_dynamic(%q: tensor<?x32x96xbf16>, %w: tensor<?x32xf32>,
                         %k: tensor<?x96xf8E4M3FN>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<?x32x96xbf16>, tensor<?x32xf32>, tensor<?x96xf8E4M3FN>, tensor<?xf32>) -> tensor<?x?xf32>
  return %l : tensor<?x?xf32>
}

func.func @score_narrow(%q: tensor<17x16x16xbf16>, %w: tensor<17x16xf32>,
                        %k: tensor<40x16xbf16>) -> tensor<17x40xf32> {
  %l = indexpool.score %q, %w, %k
      : (tensor<17x16x16xbf16>, tensor<17x16xf32>, tensor<40x16xbf16>) -> tensor<17x40xf32>
  return %l : tensor<17x40xf32>
}

func.func @score_launch(%q: tensor<3x32x64xbf16>, %w: tensor<3x32xf32>,
                        %k: tensor<150x64xf8E4M3FN>, %s: tensor<150xf32>) -> tensor<3x150xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 128, items_per_block = 32,
           elements_per_thread = 8, vector_bytes = 8, grid = tiled>}
      : (tensor<3x32x64xbf16>, tensor<3x32xf32>, tensor<150x64xf8E4M3FN>, tensor<150xf32>) -> tensor<3x150xf32>
  return %l : tensor<3x150xf32>
}

func.func @score_fp8_query(%q: tensor<3x64x128xf8E4M3FN>, %w: tensor<3x64xf32>,
                           %k: tensor<203x128xf8E4M3FN>, %s: tensor<203xf32>) -> tensor<3x203xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<3x64x128xf8E4M3FN>, tensor<3x64xf32>, tensor<203x128xf8E4M3FN>, tensor<203xf32>) -> tensor<3x203xf32>
  return %l : tensor<3x203xf32>
}

func.func @score_fp8_query_d96(%q: tensor<2x32x96xf8E4M3FN>, %w: tensor<2x32xf32>,
                               %k: tensor<61x96xf8E4M3FN>, %s: tensor<61xf32>) -> tensor<2x61xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<2x32x96xf8E4M3FN>, tensor<2x32xf32>, tensor<61x96xf8E4M3FN>, tensor<61xf32>) -> tensor<2x61xf32>
  return %l : tensor<2x61xf32>
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
