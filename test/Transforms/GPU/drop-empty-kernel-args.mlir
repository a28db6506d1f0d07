// --indexpool-drop-empty-kernel-args: a kernel parameter whose static memref
// type holds no element ([3, 0, 64], [3, 0]) becomes a local zero-element
// alloca in the kernel and leaves the kernel's signature and every launch of
// it; the other parameters keep their order, and a kernel without such a
// parameter is left as it is.
// RUN: indexpool-opt %s --indexpool-drop-empty-kernel-args | FileCheck %s

// CHECK-LABEL: func.func @host
// CHECK: gpu.launch_func @kernels::@k {{.*}} args(%{{.*}} : memref<6xbf16>, %{{.*}} : index)
// CHECK: gpu.launch_func @kernels::@k {{.*}} args(%{{.*}} : memref<6xbf16>, %{{.*}} : index)
// CHECK: gpu.launch_func @kernels::@full {{.*}} args(%{{.*}} : memref<6xbf16>)
// CHECK: gpu.func @k(%[[B:.*]]: memref<6xbf16>, %[[N:.*]]: index) kernel
// CHECK-DAG: memref.alloca() : memref<3x0x64xbf16>
// CHECK-DAG: %[[E:.*]] = memref.alloca() : memref<3x0xbf16>
// CHECK: memref.load %[[E]][%[[N]], %[[N]]] : memref<3x0xbf16>
// CHECK: memref.store {{.*}}, %[[B]][%[[N]]] : memref<6xbf16>
// CHECK: gpu.func @full(%{{.*}}: memref<6xbf16>) kernel
// CHECK-NOT: memref.alloca
module attributes {gpu.container_module} {
  func.func @host(%tail: memref<3x0x64xbf16>, %b: memref<6xbf16>, %s: memref<3x0xbf16>, %n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%tail : memref<3x0x64xbf16>, %b : memref<6xbf16>, %s : memref<3x0xbf16>, %n : index)
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%tail : memref<3x0x64xbf16>, %b : memref<6xbf16>, %s : memref<3x0xbf16>, %n : index)
    gpu.launch_func @kernels::@full blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%b : memref<6xbf16>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%tail: memref<3x0x64xbf16>, %b: memref<6xbf16>, %s: memref<3x0xbf16>, %n: index) kernel {
      %x = memref.load %s[%n, %n] : memref<3x0xbf16>
      memref.store %x, %b[%n] : memref<6xbf16>
      gpu.return
    }
    gpu.func @full(%b: memref<6xbf16>) kernel {
      gpu.return
    }
  }
}
