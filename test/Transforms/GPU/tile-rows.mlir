// --indexpool-tile-rows: each outermost scf.parallel becomes blocks x threads,
// by its indexpool.threads_per_block or the pass option.
// RUN: indexpool-opt %s --pass-pipeline="builtin.module(func.func(indexpool-tile-rows{threads-per-block=64}))" | FileCheck %s
// RUN: not indexpool-opt %s --pass-pipeline="builtin.module(func.func(indexpool-tile-rows{threads-per-block=0}))" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: indexpool-tile-rows: threads-per-block must be a multiple of 32 in [32, 1024], got 0

// CHECK-LABEL: func.func @rows
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[STEP]]) {
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[STEP]]) step
// CHECK: scf.if
// CHECK: memref.store
// CHECK-LABEL: func.func @default
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[STEP64:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// CHECK: scf.parallel
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[STEP64]]) step
func.func @rows(%m: memref<1000xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %v, %m[%i] : memref<1000xf32>
    scf.reduce
  } {indexpool.threads_per_block = 256 : i64}
  return
}

func.func @default(%m: memref<1000xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %v, %m[%i] : memref<1000xf32>
    scf.reduce
  }
  return
}
