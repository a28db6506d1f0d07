// --indexpool-merge-kernel-modules: every outlined kernel moves into the
// first gpu.module, named after the module it came from, and the launches
// follow; a module holding several kernels keeps their names as suffixes.
// RUN: indexpool-opt %s --indexpool-merge-kernel-modules | FileCheck %s

// CHECK-LABEL: func.func @host
// CHECK: gpu.launch_func @f_kernel::@f_kernel
// CHECK: gpu.launch_func @f_kernel::@f_kernel_0
// CHECK: gpu.launch_func @f_kernel::@f_kernel_1_a
// CHECK: gpu.launch_func @f_kernel::@f_kernel_1_b
// CHECK: gpu.module @f_kernel {
// CHECK-DAG: gpu.func @f_kernel(
// CHECK-DAG: gpu.func @f_kernel_0(
// CHECK-DAG: gpu.func @f_kernel_1_a(
// CHECK-DAG: gpu.func @f_kernel_1_b(
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @host(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_1::@a blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_1::@b blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @f_kernel {
    gpu.func @f_kernel(%arg0: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @f_kernel_0 {
    gpu.func @f_kernel(%arg0: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @f_kernel_1 {
    gpu.func @a(%arg0: memref<4xf32>) kernel { gpu.return }
    gpu.func @b(%arg0: memref<4xf32>) kernel { gpu.return }
  }
}
