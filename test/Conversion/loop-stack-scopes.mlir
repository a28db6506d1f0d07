// RUN: indexpool-opt %s --split-input-file --indexpool-loop-stack-scopes | FileCheck %s

// An iteration that allocates on the stack saves the stack pointer at its
// start and restores it before its yield: a loop of many iterations keeps
// one iteration's stack. Its alloca scope is inlined into the body.
// CHECK-LABEL: func.func @per_iteration
// CHECK: scf.for
// CHECK-NEXT: %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NOT: memref.alloca_scope
// CHECK: memref.alloca() : memref<16xf32>
// CHECK: memref.alloca() : memref<4xf32>
// CHECK: llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// CHECK-NEXT: }
func.func @per_iteration(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %scratch = memref.alloca() : memref<16xf32>
    memref.store %zero, %scratch[%c0] : memref<16xf32>
    %v = memref.alloca_scope -> (f32) {
      %inner = memref.alloca() : memref<4xf32>
      memref.store %zero, %inner[%c0] : memref<4xf32>
      %x = memref.load %inner[%c0] : memref<4xf32>
      memref.alloca_scope.return %x : f32
    }
    memref.store %v, %out[%i] : memref<?xf32>
  }
  return
}

// -----

// A loop that allocates nothing is left alone, and so is the stack of a
// nested allocation scope (the inner loop saves its own).
// CHECK-LABEL: func.func @nothing_to_free
// CHECK-NOT: llvm.intr.stacksave
// CHECK: return
func.func @nothing_to_free(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %zero, %out[%i] : memref<?xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @nested
// CHECK: scf.for
// CHECK-NOT: llvm.intr.stacksave
// CHECK: scf.for
// CHECK-NEXT: %[[SP:.*]] = llvm.intr.stacksave
// CHECK: memref.alloca
// CHECK: llvm.intr.stackrestore %[[SP]]
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %scratch = memref.alloca() : memref<16xf32>
    }
  }
  return
}
