// --indexpool-record-param-alignment: each gpu.launch_func gets the
// alignment its kernel's pointer parameters need: a vector access's
// alignment (16), else its vector's bytes (8 for vector<2xf32>), else the
// element's bytes for scalar accesses (2 for bf16), through views too; 0 for
// a parameter that is not a memref.
// RUN: indexpool-opt %s --indexpool-record-param-alignment | FileCheck %s

// CHECK-LABEL: func.func @host
// CHECK: gpu.launch_func @kernels::@k
// CHECK-SAME: indexpool.param_alignment = array<i64: 16, 8, 2, 0, 4>
module attributes {gpu.container_module} {
  func.func @host(%a: memref<64xf32>, %b: memref<64xf32>, %c: memref<64xbf16>, %n: index, %d: memref<8x8xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<64xf32>, %b : memref<64xf32>, %c : memref<64xbf16>, %n : index, %d : memref<8x8xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%a: memref<64xf32>, %b: memref<64xf32>, %c: memref<64xbf16>, %n: index, %d: memref<8x8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = vector.load %a[%c0] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
      %w = vector.load %b[%c0] : memref<64xf32>, vector<2xf32>
      %x = memref.load %c[%n] : memref<64xbf16>
      // A view: the access through it counts for the parameter.
      %flat = memref.collapse_shape %d [[0, 1]] : memref<8x8xf32> into memref<64xf32>
      %y = memref.load %flat[%n] : memref<64xf32>
      gpu.return
    }
  }
}
