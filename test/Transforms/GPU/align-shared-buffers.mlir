// --indexpool-align-shared-buffers: every workgroup attribution of every
// gpu.func gets llvm.align = 16 (the kernels read shared memory with
// ld.shared.v4); an alignment already there is replaced, private
// attributions and arguments are left alone.
// RUN: indexpool-opt %s --pass-pipeline="builtin.module(gpu.module(indexpool-align-shared-buffers))" | FileCheck %s

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @two(%{{.*}}: memref<4xf32>)
// CHECK-SAME: workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: private(%{{.*}} : memref<4xf32, #gpu.address_space<private>>)
// CHECK-SAME: kernel
// CHECK: gpu.func @aligned()
// CHECK-SAME: workgroup(%{{.*}} : memref<2xf64, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: gpu.func @none(%{{.*}}: memref<4xf32>) kernel
gpu.module @kernels {
  gpu.func @two(%m: memref<4xf32>)
      workgroup(%a: memref<256xf32, #gpu.address_space<workgroup>>,
                %b: memref<8xi8, #gpu.address_space<workgroup>>)
      private(%p: memref<4xf32, #gpu.address_space<private>>) kernel {
    gpu.return
  }
  gpu.func @aligned()
      workgroup(%a: memref<2xf64, #gpu.address_space<workgroup>> {llvm.align = 8 : i64}) {
    gpu.return
  }
  gpu.func @none(%m: memref<4xf32>) kernel {
    gpu.return
  }
}
