// --indexpool-tile-rows: each outermost scf.parallel becomes blocks x threads,
// by its indexpool.threads_per_block or the pass option; with
// indexpool.items_per_block a block handles tiles of that many rows, and
// with indexpool.max_blocks at most that many blocks stride over the tiles.
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
// CHECK-LABEL: func.func @tiles
// CHECK-SAME: (%{{.*}}: memref<?xf32>, %{{.*}}: f32, %[[N:.*]]: index)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C160:.*]] = arith.constant 160 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[N]], %[[C160]] : index
// CHECK: %[[GRID:.*]] = arith.minui %[[TILES]], %c528 : index
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%[[GRID]]) step
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[C64]]) step
// CHECK: scf.for %[[TILE:.*]] = %[[B]] to %[[TILES]] step %[[GRID]] {
// CHECK: scf.for %[[STEP:.*]] = %{{.*}} to %[[C3]] step
// CHECK: %[[S:.*]] = arith.muli %[[STEP]], %[[C64]] : index
// CHECK: %[[SLOT:.*]] = arith.addi %[[S]], %[[T]] : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[TILE]], %[[C160]] : index
// CHECK: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[SLOT]] : index
// CHECK: arith.cmpi ult, %[[SLOT]], %[[C160]] : index
// CHECK: arith.cmpi ult, %[[ROW]], %[[N]] : index
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[ROW]]]
// CHECK-LABEL: func.func @one_tile_per_block
// CHECK: %[[TILES2:.*]] = arith.ceildivui %{{.*}}, %c32 : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[TILES2]]) step
// CHECK-NOT: scf.for
// CHECK: scf.if
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

func.func @tiles(%m: memref<?xf32>, %v: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %v, %m[%i] : memref<?xf32>
    scf.reduce
  } {indexpool.threads_per_block = 64 : i64, indexpool.items_per_block = 160 : i64,
     indexpool.max_blocks = 528 : i64}
  return
}

func.func @one_tile_per_block(%m: memref<?xf32>, %v: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %v, %m[%i] : memref<?xf32>
    scf.reduce
  } {indexpool.threads_per_block = 64 : i64, indexpool.items_per_block = 32 : i64}
  return
}
