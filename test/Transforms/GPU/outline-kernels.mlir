// --indexpool-outline-kernels: upstream outlining, and a launch's
// indexpool.min_blocks_per_sm on its kernel as nvvm.minctasm (which LLVM
// prints as .minnctapersm); launches without the hint get none. Two
// launches in one function and one in another: hints follow their launch.
// RUN: indexpool-opt %s --indexpool-outline-kernels | FileCheck %s

// CHECK-LABEL: func.func @two
// CHECK: gpu.launch_func @two_kernel::@two_kernel
// CHECK: gpu.launch_func @two_kernel_0::@two_kernel
// CHECK: gpu.module @two_kernel {
// CHECK-NEXT: gpu.func @two_kernel(
// CHECK-NOT: minctasm
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-NOT: minctasm
// CHECK: gpu.module @two_kernel_0 {
// CHECK-NEXT: gpu.func @two_kernel(
// CHECK-SAME: known_block_size = array<i32: 1024, 1, 1>
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK-LABEL: func.func @one
// CHECK: gpu.launch_func @one_kernel::@one_kernel
// CHECK: gpu.func @one_kernel(
// CHECK-SAME: nvvm.minctasm = 2 : i32
func.func @two(%a: memref<1024xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %v = arith.constant 1.0 : f32
    memref.store %v, %a[%tx] : memref<1024xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1024, %sy = %c1, %sz = %c1) {
    %v = arith.constant 2.0 : f32
    memref.store %v, %a[%tx] : memref<1024xf32>
    gpu.terminator
  } {indexpool.min_blocks_per_sm = 1 : i64}
  return
}

func.func @one(%a: memref<1024xf32>) {
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c512, %sy = %c1, %sz = %c1) {
    %v = arith.constant 3.0 : f32
    memref.store %v, %a[%tx] : memref<1024xf32>
    gpu.terminator
  } {indexpool.min_blocks_per_sm = 2 : i64}
  return
}
