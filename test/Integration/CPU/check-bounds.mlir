// --indexpool-to-cpu=check-bounds=true (indexpool-run --check-bounds): an
// access outside its buffer ends in one error line naming it and exit
// code 1, instead of corrupting memory. Each function below makes one such
// access, one element past either end of a 4-element buffer (a global, so
// that no store is removed as dead).
// RUN: indexpool-opt %s --indexpool-to-cpu=check-bounds=true > %t.mlir
// RUN: not %mlir_runner %t.mlir -e load_past_end -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=LOAD
// RUN: not %mlir_runner %t.mlir -e store_past_end -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: not %mlir_runner %t.mlir -e vector_store_past_end -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=VSTORE
// RUN: not %mlir_runner %t.mlir -e vector_load_negative -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=VLOAD
// RUN: %mlir_runner %t.mlir -e in_bounds -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=FINE --allow-empty
// Without the option no check is emitted.
// RUN: indexpool-opt %s --indexpool-to-cpu | FileCheck %s --check-prefix=OFF

memref.global "private" @buffer : memref<4xf32> = dense<0.0>

// LOAD: error: bounds check failed (--check-bounds): out-of-bounds access at loc({{.*}}check-bounds.mlir":[[@LINE+6]]:{{[0-9]+}})
// LOAD-NOT: Stack dump
func.func @load_past_end() {
  %m = memref.get_global @buffer : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %v = memref.load %m[%c4] : memref<4xf32>
  memref.store %v, %m[%c0] : memref<4xf32>
  return
}

// STORE: error: bounds check failed (--check-bounds): out-of-bounds access at loc({{.*}}check-bounds.mlir":[[@LINE+5]]:{{[0-9]+}})
func.func @store_past_end() {
  %m = memref.get_global @buffer : memref<4xf32>
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %m[%c4] : memref<4xf32>
  return
}

// The vector covers elements 1..4: its last lane is past the end.
// VSTORE: error: bounds check failed (--check-bounds): out-of-bounds vector.store at loc({{.*}}check-bounds.mlir":[[@LINE+5]]:{{[0-9]+}})
func.func @vector_store_past_end() {
  %m = memref.get_global @buffer : memref<4xf32>
  %c1 = arith.constant 1 : index
  %v = arith.constant dense<1.0> : vector<4xf32>
  vector.store %v, %m[%c1] : memref<4xf32>, vector<4xf32>
  return
}

// VLOAD: error: bounds check failed (--check-bounds): out-of-bounds vector.load at loc({{.*}}check-bounds.mlir":[[@LINE+5]]:{{[0-9]+}})
func.func @vector_load_negative() {
  %m = memref.get_global @buffer : memref<4xf32>
  %c0 = arith.constant 0 : index
  %minus = arith.constant -1 : index
  %v = vector.load %m[%minus] : memref<4xf32>, vector<2xf32>
  vector.store %v, %m[%c0] : memref<4xf32>, vector<2xf32>
  return
}

// FINE-NOT: error
func.func @in_bounds() {
  %m = memref.get_global @buffer : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %v = vector.load %m[%c0] : memref<4xf32>, vector<4xf32>
  vector.store %v, %m[%c0] : memref<4xf32>, vector<4xf32>
  %s = memref.load %m[%c3] : memref<4xf32>
  memref.store %s, %m[%c0] : memref<4xf32>
  return
}

// OFF-NOT: bounds check failed
// OFF-NOT: llvm.call @_exit
