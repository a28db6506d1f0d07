// --indexpool-kernel-size-params: a buffer of dynamic size used in a
// gpu.launch crosses as a 1-element view of its first element (a bare
// pointer after outlining) plus its dynamic sizes (index values, made once
// per buffer right after it is defined, the size an allocation was made
// with rather than a new query); the body rebuilds the full view with
// row-major strides. Static buffers cross unchanged; a buffer that is not
// row-major and contiguous is an error.
// RUN: indexpool-opt %s -split-input-file -verify-diagnostics --indexpool-kernel-size-params | FileCheck %s

// CHECK-LABEL: func.func @two_launches
// CHECK-SAME: (%[[IN:.*]]: memref<?x?xf32>, %[[STATIC:.*]]: memref<8xf32>, %[[N:.*]]: index)
// CHECK-DAG: %[[D0:.*]] = memref.dim %[[IN]], %c0
// CHECK-DAG: %[[D1:.*]] = memref.dim %[[IN]], %c1
// CHECK: %[[P:.*]] = memref.reinterpret_cast %[[IN]] to offset: [0], sizes: [1], strides: [1] : memref<?x?xf32> to memref<1xf32>
// CHECK: %[[OUT:.*]] = memref.alloc(%[[N]]) : memref<?x4xf32>
// CHECK: %[[Q:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [1], strides: [1] : memref<?x4xf32> to memref<1xf32>
// CHECK: gpu.launch
// CHECK-DAG: %[[V:.*]] = memref.reinterpret_cast %[[P]] to offset: [0], sizes: [%[[D0]], %[[D1]]], strides: [%[[D1]], 1] : memref<1xf32> to memref<?x?xf32>
// CHECK-DAG: %[[W:.*]] = memref.reinterpret_cast %[[Q]] to offset: [0], sizes: [%[[N]], 4], strides: [4, 1] : memref<1xf32> to memref<?x4xf32>
// CHECK: memref.load %[[V]]
// CHECK: memref.load %[[STATIC]]
// CHECK: memref.store %{{.*}}, %[[W]]
// CHECK: gpu.launch
// CHECK: %[[W2:.*]] = memref.reinterpret_cast %[[Q]] to offset: [0], sizes: [%[[N]], 4]
// CHECK: memref.dim %[[W2]]
// CHECK: return
func.func @two_launches(%in: memref<?x?xf32>, %static: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %out = memref.alloc(%n) : memref<?x4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = memref.load %in[%c0, %c0] : memref<?x?xf32>
    %y = memref.load %static[%c0] : memref<8xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %out[%c0, %c0] : memref<?x4xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %d = memref.dim %out, %c0 : memref<?x4xf32>
    %f = arith.index_cast %d : index to i32
    %v = arith.sitofp %f : i32 to f32
    memref.store %v, %out[%c0, %c0] : memref<?x4xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @strided(%in: memref<?x4xf32, strided<[8, 1]>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{a GPU kernel takes buffers of dynamic size that are row-major and contiguous, got 'memref<?x4xf32, strided<[8, 1]>>'}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = memref.load %in[%c0, %c0] : memref<?x4xf32, strided<[8, 1]>>
    memref.store %x, %in[%c0, %c1] : memref<?x4xf32, strided<[8, 1]>>
    gpu.terminator
  }
  return
}
