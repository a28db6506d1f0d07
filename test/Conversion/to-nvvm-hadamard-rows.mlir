// hadamard with dynamic leading dimensions or rank 1 is the warp-row kernel
// too (the row count read at run time; rank 1 is one row, expanded to
// [1, D]), not the row loops' fallback, whose per-thread scratch row was a
// .local depot (512 bytes for D = 128): no local memory, no stack frame, no
// spill, on sm_90 and on sm_80.
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels=chip=sm_90 | FileCheck %s --check-prefix=KERNELS
// RUN: indexpool-opt %s --indexpool-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --implicit-check-not=.local
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_90 --emit=ptx -o %t
// RUN: python3 %S/../ptxas_report.py --arch=sm_90 --no-spills --no-stack %t/leading.sm_90.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_90 --no-spills --no-stack %t/rows_bf16.sm_90.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_90 --no-spills --no-stack %t/vector1d.sm_90.ptx | FileCheck %s --check-prefix=ONE
// RUN: indexpool-compile %s --chip=sm_80 --emit=ptx -o %t
// RUN: python3 %S/../ptxas_report.py --arch=sm_80 --no-spills --no-stack %t/leading.sm_80.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_80 --no-spills --no-stack %t/vector1d.sm_80.ptx | FileCheck %s --check-prefix=ONE

// ONE: kernel {{.*}} stack=0 spill_stores=0 spill_loads=0

// KERNELS-LABEL: func.func @leading
// KERNELS: memref.collapse_shape {{.*}} {{\[}}[0, 1, 2], [3]] : memref<?x1x64x128xf32> into memref<?x128xf32>
// KERNELS: gpu.launch
// KERNELS-NOT: indexpool.hadamard
// KERNELS-NOT: memref.alloca
// KERNELS-LABEL: func.func @rows_bf16
// KERNELS: gpu.launch
// KERNELS-NOT: indexpool.hadamard
// KERNELS-NOT: memref.alloca
// KERNELS-LABEL: func.func @vector1d
// KERNELS: memref.expand_shape {{.*}} {{\[}}[0, 1]] output_shape [1, 32] : memref<32xf32> into memref<1x32xf32>
// KERNELS: gpu.launch
// KERNELS-NOT: indexpool.hadamard
// KERNELS-NOT: memref.alloca

// CHECK-LABEL: func.func @leading
// CHECK: %[[ROWS:.*]] = arith.ceildivui
// CHECK: gpu.launch_func @{{[a-z_0-9]+}}::@leading_kernel blocks in (%[[ROWS]],
// All the kernels in one module, after the first function.
// CHECK: gpu.binary
// CHECK-SAME: .entry leading_kernel(
// CHECK-SAME: .entry rows_bf16_kernel(
// CHECK-SAME: .entry vector1d_kernel(
// CHECK-LABEL: func.func @rows_bf16
// CHECK: gpu.launch_func @{{[a-z_0-9]+}}::@rows_bf16_kernel
// CHECK-LABEL: func.func @vector1d
// CHECK: gpu.launch_func @{{[a-z_0-9]+}}::@vector1d_kernel

// The query of bench/gpu/cache.mlir's select_paged: [?, 1, H, D].
func.func @leading(%x: tensor<?x1x64x128xf32>) -> tensor<?x1x64x128xf32> {
  %y = indexpool.hadamard %x : (tensor<?x1x64x128xf32>) -> tensor<?x1x64x128xf32>
  return %y : tensor<?x1x64x128xf32>
}

func.func @rows_bf16(%x: tensor<?x?x128xbf16>) -> tensor<?x?x128xf32> {
  %y = indexpool.hadamard %x : (tensor<?x?x128xbf16>) -> tensor<?x?x128xf32>
  return %y : tensor<?x?x128xf32>
}

func.func @vector1d(%x: tensor<32xf32>) -> tensor<32xf32> {
  %y = indexpool.hadamard %x : (tensor<32xf32>) -> tensor<32xf32>
  return %y : tensor<32xf32>
}
