// An op's #indexpool.launch sets its kernel's block size; a configuration
// chosen for another chip is refused, at the op, before any kernel is built.
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels=chip=sm_90 | FileCheck %s
// RUN: not indexpool-opt %s --indexpool-to-gpu-kernels=chip=sm_80 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: not indexpool-opt %s --indexpool-to-nvvm=chip=sm_120 2>&1 | FileCheck %s --check-prefix=FOREIGN120

// FOREIGN: to-gpu-kernels-configured.mlir:[[# @LINE + 12]]:16: error: this op's 'indexpool.launch' was chosen for sm_90, but the kernels are compiled for sm_80: configure it for sm_80 (--indexpool-configure=chip=sm_80) or remove the attribute
// FOREIGN120: error: this op's 'indexpool.launch' was chosen for sm_90, but the kernels are compiled for sm_120

// The launch configuration's threads per block; per-channel scores read in
// 16-byte loads too; D = 1024 f32 = 8 chunks of 32 lanes x 4 channels.
// CHECK-LABEL: func.func @compress_configured
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c512,
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<32x1024xf32>, vector<4xf32>
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: vector.store {{.*}} : memref<8x1024xi8>, vector<4xi8>
func.func @compress_configured(%keys: tensor<32x1024xf32>, %scores: tensor<32x1024xf32>)
    -> (tensor<8x1024xi8>, tensor<8xf32>, tensor<8x4x1024xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores
      {pool_size = 4 : i64, rotate,
       indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 16, elements_per_thread = 4, vector_bytes = 16, grid = tiled>}
      : (tensor<32x1024xf32>, tensor<32x1024xf32>) -> (tensor<8x1024xi8>, tensor<8xf32>, tensor<8x4x1024xf32>)
  return %q, %s, %w : tensor<8x1024xi8>, tensor<8xf32>, tensor<8x4x1024xf32>
}

