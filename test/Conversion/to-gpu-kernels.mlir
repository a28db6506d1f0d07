// --indexpool-to-gpu-kernels: compress is ONE gpu.launch (16-byte loads,
// shuffles for the rotation and the absmax, hardware FP8 on sm_89+), score
// keeps the query in shared memory, topk is a radix select with shared
// atomics, expand one thread per pool, select becomes the three of them,
// refine a gather-score, the topk and a take kernel. The scores here are
// the CUDA-core kernels (tensor-cores=false); the tensor-core ones, the
// default, are checked in test/Integration/GPUEmulator/score-mma.mlir and
// mma-ops.mlir.
// RUN: indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels="chip=sm_90 tensor-cores=false" | FileCheck %s
// RUN: indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels="chip=sm_80 tensor-cores=false" | FileCheck %s --check-prefix=SM80
// RUN: indexpool-opt %s -split-input-file --indexpool-configure=chip=sm_120 --indexpool-to-gpu-kernels="chip=sm_120 tensor-cores=false" | FileCheck %s --check-prefix=CONF120
// RUN: not indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels=chip=sm_42 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels="chip=sm_90 threads-per-block=48" 2>&1 | FileCheck %s --check-prefix=THREADS

// CHIP: indexpool-to-gpu-kernels: unknown chip 'sm_42'; known chips: sm_80
// THREADS: indexpool-to-gpu-kernels: threads-per-block must be a multiple of 32 in [32, 1024], got 48

// D = 128 bf16: 16 lanes of 8 channels per group, 2 groups per warp, 16 per
// block of 256 threads: 1 block for 16 groups.
// CHECK-LABEL: func.func @compress
// CHECK-NOT: indexpool.
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, {{.*}} threads({{.*}}) in (%{{.*}} = %c256,
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<64x128xbf16>, vector<8xbf16>
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<16x128xf8E4M3FN>, vector<8xf8E4M3FN>
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
// sm_80 has no FP8 conversion instruction: the integer encoder.
// SM80-LABEL: func.func @compress
// SM80-NOT: nvvm.convert
// SM80: gpu.shuffle xor
// SM80-NOT: nvvm.convert
// SM80: return
// The chip's launch configuration: 384 threads on sm_120 (1536 per SM).
// CONF120-LABEL: func.func @compress
// CONF120: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c384,
// CONF120: nvvm.convert.f32x2.to.f8x2
func.func @compress(%keys: tensor<64x128xbf16>, %scores: tensor<64xf32>)
    -> (tensor<16x128xf8E4M3FN>, tensor<16xf32>, tensor<16x4xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<64x128xbf16>, tensor<64xf32>) -> (tensor<16x128xf8E4M3FN>, tensor<16xf32>, tensor<16x4xf32>)
  return %q, %s, %w : tensor<16x128xf8E4M3FN>, tensor<16xf32>, tensor<16x4xf32>
}

// -----

// Shapes the warp kernel does not cover stay for --indexpool-to-loops.
// CHECK-LABEL: func.func @compress_dynamic_d
// CHECK: indexpool.compress
// CHECK-NOT: gpu.launch
func.func @compress_dynamic_d(%keys: tensor<64x?xf32>, %scores: tensor<64xf32>)
    -> (tensor<16x?xi8>, tensor<16xf32>, tensor<16x4xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64}
      : (tensor<64x?xf32>, tensor<64xf32>) -> (tensor<16x?xi8>, tensor<16xf32>, tensor<16x4xf32>)
  return %q, %s, %w : tensor<16x?xi8>, tensor<16xf32>, tensor<16x4xf32>
}

// -----

// score: the query row (64 x 128 f32 = 8192) and the weights in shared
// memory, keys in 16-byte loads (16 FP8 codes).
// CHECK-LABEL: func.func @score
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<8192xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>)
// CHECK: gpu.barrier
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<1000x128xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<8192xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// Its 64 accumulators per thread allow at most 256 threads per block.
// CONF120-LABEL: func.func @score
// CONF120: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256,
func.func @score(%q: tensor<2x64x128xbf16>, %w: tensor<2x64xf32>, %k: tensor<1000x128xf8E4M3FN>,
                 %s: tensor<1000xf32>) -> tensor<2x1000xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<2x64x128xbf16>, tensor<2x64xf32>, tensor<1000x128xf8E4M3FN>, tensor<1000xf32>) -> tensor<2x1000xf32>
  return %l : tensor<2x1000xf32>
}

// -----

// topk: four kernels: the [3, 4097] histograms and counters zeroed; a
// 4096-bin prefix histogram per row segment (its warp-aggregated atomics
// into shared memory, then into the row's); the candidates (one atomic per
// warp); one block per row, 8 radix passes of a 256-bin histogram and the
// winners' slots.
// CHECK-LABEL: func.func @topk
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x4097xi32>
// CHECK: memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?xi32>
// CHECK: gpu.launch
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<4096xi32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-2: memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<4096xi32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-1: memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c3,
// CHECK-SAME: workgroup(%{{.*}} : memref<256xi32, #gpu.address_space<workgroup>>
// CHECK-COUNT-9: memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.terminator
func.func @topk(%l: tensor<3x5000xf32>, %len: tensor<3xi32>) -> (tensor<3x100xf32>, tensor<3x100xi32>) {
  %v, %i = indexpool.topk %l valid(%len) {k = 100 : i64}
      : (tensor<3x5000xf32>, tensor<3xi32>) -> (tensor<3x100xf32>, tensor<3x100xi32>)
  return %v, %i : tensor<3x100xf32>, tensor<3x100xi32>
}

// -----

// select = score -> topk (four kernels) -> expand: six kernels.
// CHECK-LABEL: func.func @select
// CHECK-NOT: indexpool.
// CHECK-COUNT-6: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @select(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %k: tensor<4096x128xf8E4M3FN>,
                  %s: tensor<4096xf32>) -> tensor<1x512xi32> {
  %t = indexpool.select %q, %w, %k scales(%s) {k = 128 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>)
        -> tensor<1x512xi32>
  return %t : tensor<1x512xi32>
}

// -----

// refine = gather-score (the score kernel on the rows the candidates name,
// a padding candidate NaN and not read), topk, take: three kernels.
// CHECK-LABEL: func.func @refine
// CHECK-NOT: indexpool.
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}} : memref<1x2048xi32>
// CHECK: arith.cmpi ult
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK: math.fma
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}} : memref<1x2048xi32>
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @refine(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %c: tensor<1x2048xi32>,
                  %k: tensor<65536x128xf8E4M3FN>, %s: tensor<65536xf32>) -> tensor<1x512xi32> {
  %t = indexpool.refine %q, %w, %c, %k scales(%s) {k = 512 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1x2048xi32>, tensor<65536x128xf8E4M3FN>,
         tensor<65536xf32>) -> tensor<1x512xi32>
  return %t : tensor<1x512xi32>
}
