// --indexpool-to-nvvm: pool, hadamard and quantize become warp-row kernels,
// outlined, all in one gpu.module, compiled to PTX for the chip with its PTX
// version; rows are read with 16-byte global loads.
// RUN: indexpool-opt %s --indexpool-to-nvvm="chip=sm_90 format=isa" | FileCheck %s
// RUN: indexpool-opt %s --indexpool-to-nvvm="chip=sm_80 format=isa threads-per-block=256" | FileCheck %s --check-prefix=SM80
// RUN: not indexpool-opt %s --indexpool-to-nvvm="chip=sm_42" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not indexpool-opt %s --indexpool-to-nvvm="chip=sm_90 format=elf" 2>&1 | FileCheck %s --check-prefix=FORMAT

// RUN: not indexpool-opt %s --indexpool-to-nvvm="chip=sm_90 threads-per-block=48" 2>&1 | FileCheck %s --check-prefix=TPB
// Dynamic shapes: the kernel takes each buffer as a pointer and its
// dynamic sizes as i64 parameters (--indexpool-kernel-size-params).
// RUN: indexpool-opt %S/../Tools/Inputs/dynamic-pool.mlir --indexpool-to-nvvm="chip=sm_90" | FileCheck %s --check-prefix=DYNAMIC

// CHIP: indexpool-to-nvvm: unknown chip 'sm_42'; known chips: sm_80
// TPB: indexpool-to-nvvm: threads-per-block must be a multiple of 32 in [32, 1024], got 48
// DYNAMIC: %[[T:.*]] = memref.dim %arg0, %c0 : memref<?x64xf32>
// DYNAMIC: %[[KEYS:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [1], strides: [1] : memref<?x64xf32> to memref<1xf32>
// DYNAMIC: gpu.launch_func {{ *}}@pool_kernel::@pool_kernel {{.*}} args({{.*}}%[[KEYS]] : memref<1xf32>, %[[T]] : index
// DYNAMIC: .param .u64 .ptr .align 1 pool_kernel_param_0,\0A\09.param .u64 pool_kernel_param_1,
// FORMAT: indexpool-to-nvvm: format must be isa, bin or fatbin, got 'elf'

// CHECK-LABEL: func.func @chain
// CHECK: gpu.launch_func @[[MOD:[a-z_0-9]+]]::@{{[a-z_0-9]+}} blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in
// CHECK: gpu.launch_func @[[MOD]]::
// CHECK: gpu.launch_func @[[MOD]]::
// CHECK-NOT: gpu.module
// CHECK: gpu.binary @[[MOD]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx{{[0-9]+}}">
// CHECK-SAME: ld.global.v4.b32
// SM80: gpu.binary
// SM80-SAME: chip = "sm_80"
func.func @chain(%keys: tensor<4096x128xbf16>, %scores: tensor<4096x128xf32>)
    -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<4096x128xbf16>, tensor<4096x128xf32>) -> (tensor<1024x128xbf16>, tensor<1024x4x128xf32>)
  %r = indexpool.hadamard %p : (tensor<1024x128xbf16>) -> tensor<1024x128xbf16>
  %q, %s = indexpool.quantize %r {pow2_scale} : (tensor<1024x128xbf16>) -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>)
  return %q, %s : tensor<1024x128xf8E4M3FN>, tensor<1024xf32>
}

// With --indexpool-configure first, each kernel has its op's
// #indexpool.launch threads_per_block: 512 on sm_90 (2048 threads/SM), 384
// on sm_120 (1536); pool, hadamard and quantize are warp-row kernels here
// (D = 128), declared with that block size (.maxntid). Row loops cap it at
// 256 (test/Conversion/to-nvvm-tails.mlir).
// RUN: indexpool-opt %s --indexpool-configure=chip=sm_90 --indexpool-to-nvvm="chip=sm_90" | FileCheck %s --check-prefix=CONF90
// RUN: indexpool-opt %s --indexpool-configure=chip=sm_120 --indexpool-to-nvvm="chip=sm_120" | FileCheck %s --check-prefix=CONF120
// CONF90-COUNT-3: threads in (%c512, %c1, %c1)
// CONF90: .maxntid 512, 1, 1
// CONF120-COUNT-3: threads in (%c384, %c1, %c1)
// CONF120: .maxntid 384, 1, 1
