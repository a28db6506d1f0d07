// --indexpool-merge-kernel-modules: every outlined kernel moves into the
// first gpu.module, named after the module it came from, and the launches
// follow; a module holding several kernels keeps their names as suffixes.
// RUN: not indexpool-opt %s -split-input-file --indexpool-merge-kernel-modules 2> %t.err | FileCheck %s --check-prefixes=CHECK,ZERO,NONE,NAMES
// RUN: FileCheck %s --check-prefixes=GRID,GRIDX --implicit-check-not=error: --implicit-check-not=note: < %t.err

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

// -----

// A launch of zero blocks (an op with an empty dimension) runs nothing: it is
// dropped with its kernel, and the module of the kernel with it.
// ZERO-LABEL: func.func @host
// ZERO-NOT: gpu.launch_func @empty
// ZERO: gpu.launch_func @f_kernel::@f_kernel blocks in
// ZERO-NOT: gpu.launch_func
// ZERO: gpu.module @f_kernel {
// ZERO-NEXT: gpu.func @f_kernel(
// ZERO-NOT: gpu.func
// ZERO-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @host(%m: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @empty::@empty blocks in (%c0, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @empty_y::@empty_y blocks in (%c1, %c0, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @empty {
    gpu.func @empty(%arg0: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @empty_y {
    gpu.func @empty_y(%arg0: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @f_kernel {
    gpu.func @f_kernel(%arg0: memref<4xf32>) kernel { gpu.return }
  }
}

// -----

// Nothing launched at all: one empty gpu.module, so that the function still
// compiles to one binary (without kernels).
// NONE-LABEL: func.func @host
// NONE-NOT: gpu.launch_func
// NONE: gpu.module @kernels {
// NONE-NEXT: }
module attributes {gpu.container_module} {
  func.func @host(%m: memref<0xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @g_kernel::@g_kernel blocks in (%c1, %c1, %c1) threads in (%c0, %c1, %c1) args(%m : memref<0xf32>)
    return
  }
  gpu.module @g_kernel {
    gpu.func @g_kernel(%arg0: memref<0xf32>) kernel { gpu.return }
  }
}

// -----

// Kernel names come from function names, which may be any string: each
// becomes a PTX identifier, "_" + the name with $XX for every other byte,
// distinct for distinct names ("a.b" and "a_2Eb", "1x" and "_1x"); a call
// between kernels follows the rename.
// NAMES-LABEL: func.func @host
// NAMES: gpu.launch_func @_my$20kernel$2D1$2Ex_kernel::@_my$20kernel$2D1$2Ex_kernel
// NAMES: gpu.launch_func @_my$20kernel$2D1$2Ex_kernel::@_a$2Eb_kernel
// NAMES: gpu.launch_func @_my$20kernel$2D1$2Ex_kernel::@a_2Eb_kernel
// NAMES: gpu.launch_func @_my$20kernel$2D1$2Ex_kernel::@_$31x_kernel
// NAMES: gpu.launch_func @_my$20kernel$2D1$2Ex_kernel::@_1x_kernel
// NAMES: gpu.launch_func @_my$20kernel$2D1$2Ex_kernel::@_$2E$2E$2Fx$24$C3$A9_kernel
// NAMES: gpu.module @_my$20kernel$2D1$2Ex_kernel {
// NAMES-DAG: gpu.func @_my$20kernel$2D1$2Ex_kernel(
// NAMES-DAG: func.call @_helper$2Eone(
// NAMES-DAG: func.func private @_helper$2Eone(
module attributes {gpu.container_module} {
  func.func @host(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @"my kernel-1.x_kernel"::@"my kernel-1.x_kernel" blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @"a.b_kernel"::@"a.b_kernel" blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @a_2Eb_kernel::@a_2Eb_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @"1x_kernel"::@"1x_kernel" blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @_1x_kernel::@_1x_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @"../x$é_kernel"::@"../x$é_kernel" blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @"my kernel-1.x_kernel" {
    func.func private @"helper.one"(%arg0: memref<4xf32>) { return }
    gpu.func @"my kernel-1.x_kernel"(%arg0: memref<4xf32>) kernel {
      func.call @"helper.one"(%arg0) : (memref<4xf32>) -> ()
      gpu.return
    }
  }
  gpu.module @"a.b_kernel" {
    gpu.func @"a.b_kernel"(%arg0: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @a_2Eb_kernel {
    gpu.func @a_2Eb_kernel(%arg0: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @"1x_kernel" {
    gpu.func @"1x_kernel"(%arg0: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @_1x_kernel {
    gpu.func @_1x_kernel(%arg0: memref<4xf32>) kernel { gpu.return }
  }
  gpu.module @"../x$é_kernel" {
    gpu.func @"../x$é_kernel"(%arg0: memref<4xf32>) kernel { gpu.return }
  }
}

// -----

// A grid beyond what CUDA allows is an error at the op, not a wrapped size.
// GRID: merge-kernel-modules.mlir:{{[0-9]+}}:5: error: the GPU kernel of this op needs 65536 blocks in grid dimension y, beyond CUDA's limit of 65535: split the op into smaller ones
module attributes {gpu.container_module} {
  func.func @host(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %big = arith.constant 65536 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %big, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @f_kernel {
    gpu.func @f_kernel(%arg0: memref<4xf32>) kernel { gpu.return }
  }
}

// -----

// GRIDX: error: the GPU kernel of this op needs 2147483648 blocks in grid dimension x, beyond CUDA's limit of 2147483647
module attributes {gpu.container_module} {
  func.func @host(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %big = arith.constant 2147483648 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%big, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @f_kernel {
    gpu.func @f_kernel(%arg0: memref<4xf32>) kernel { gpu.return }
  }
}
