// RUN: indexpool-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(indexpool-return-arguments-in-place))" | FileCheck %s

// The clone the deallocation pipeline adds to a returned argument is
// dropped: the function returns the caller's buffer itself.
// CHECK-LABEL: func.func @pages
// CHECK-SAME: (%[[PAGES:.*]]: memref<3x40xi8>)
// CHECK-NOT: bufferization.clone
// CHECK: return %[[PAGES]]
func.func @pages(%pages: memref<3x40xi8>) -> memref<3x40xi8> {
  %0 = bufferization.clone %pages : memref<3x40xi8> to memref<3x40xi8>
  return %0 : memref<3x40xi8>
}

// -----

// A clone of a buffer the function allocated is not an argument: kept.
// CHECK-LABEL: func.func @fresh
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: %[[C:.*]] = bufferization.clone %[[A]]
// CHECK: return %[[C]]
func.func @fresh() -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  %c = bufferization.clone %a : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return %c : memref<4xf32>
}

// -----

// A clone that is also used elsewhere stays for that use; the return still
// takes the argument.
// CHECK-LABEL: func.func @shared
// CHECK-SAME: (%[[X:[^:]*]]: memref<4xf32>
// CHECK: %[[C:.*]] = bufferization.clone %[[X]]
// CHECK: memref.copy %[[C]]
// CHECK: return %[[X]], %[[X]]
func.func @shared(%x: memref<4xf32>, %y: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %c = bufferization.clone %x : memref<4xf32> to memref<4xf32>
  memref.copy %c, %y : memref<4xf32> to memref<4xf32>
  return %c, %c : memref<4xf32>, memref<4xf32>
}
