// --indexpool-emulate-gpu-kernels on its own: a block becomes an OpenMP team
// of blockDim threads, shared buffers stack buffers, barriers omp.barrier,
// shuffles an exchange through a shared array between two barriers, e4m3x2
// conversions the software encoder; before-deallocation keeps barriers as
// calls.
// RUN: indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels=chip=sm_90 --indexpool-emulate-gpu-kernels=sm-count=132 | FileCheck %s --check-prefix=EMU
// RUN: indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels=chip=sm_90 --indexpool-emulate-gpu-kernels="before-deallocation=true sm-count=132" | FileCheck %s --check-prefix=FIRST
// The host's query of the device's SM count (grid-stride waves) is the
// emulated chip's count; without one it is an error at the query.
// RUN: indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels=chip=sm_90 --indexpool-emulate-gpu-kernels=sm-count=132 | FileCheck %s --check-prefix=SMS
// RUN: not indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels=chip=sm_90 --indexpool-emulate-gpu-kernels 2>&1 | FileCheck %s --check-prefix=NOSMS

// SMS-NOT: __indexpool_device_sm_count
// SMS-LABEL: func.func @score
// SMS: %[[SMS:.*]] = arith.constant 132 : index
// SMS: arith.minui %[[SMS]], %{{.*}} : index
// NOSMS: error: the GPU emulator needs the SM count of the emulated chip (sm-count) for this query

// EMU-LABEL: func.func @score
// EMU-NOT: gpu.
// EMU: memref.alloca() {alignment = 16 : i64} : memref<256xf32>
// EMU: omp.parallel num_threads(%{{.*}} : i32) {
// EMU: func.call @omp_get_thread_num()
// EMU: func.call @indexpool_gpu_emulator_team_mismatch
// EMU: omp.barrier
// EMU: omp.terminator
// FIRST-LABEL: func.func @score
// FIRST: func.call @indexpool_gpu_emulator_barrier()
// FIRST-NOT: omp.barrier
func.func @score(%q: tensor<1x8x32xf32>, %w: tensor<1x8xf32>, %k: tensor<100x32xf32>) -> tensor<1x100xf32> {
  %l = indexpool.score %q, %w, %k : (tensor<1x8x32xf32>, tensor<1x8xf32>, tensor<100x32xf32>) -> tensor<1x100xf32>
  return %l : tensor<1x100xf32>
}

// -----

// EMU-LABEL: func.func @compress
// EMU-NOT: gpu.shuffle
// EMU-NOT: nvvm.convert
// EMU: memref.store %{{.*}}, %[[XCHG:.*]][%{{.*}}] : memref<256xi32>
// EMU-NEXT: omp.barrier
// EMU: memref.load %[[XCHG]][%{{.*}}] : memref<256xi32>
// EMU-NEXT: omp.barrier
func.func @compress(%keys: tensor<64x128xbf16>, %scores: tensor<64xf32>)
    -> (tensor<16x128xf8E4M3FN>, tensor<16xf32>, tensor<16x4xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<64x128xbf16>, tensor<64xf32>) -> (tensor<16x128xf8E4M3FN>, tensor<16xf32>, tensor<16x4xf32>)
  return %q, %s, %w : tensor<16x128xf8E4M3FN>, tensor<16xf32>, tensor<16x4xf32>
}
