// --indexpool-tile-rows: each outermost scf.parallel becomes blocks x threads,
// by its indexpool.threads_per_block or the pass option; with
// indexpool.items_per_block a block handles tiles of that many rows, and
// with indexpool.blocks_per_sm one wave of blocks (that many per SM of the
// device, whose SM count the host asks for at run time) strides over the
// tiles. Grids are unsigned index arithmetic on the row count.
// RUN: indexpool-opt %s --pass-pipeline="builtin.module(indexpool-tile-rows{threads-per-block=64})" | FileCheck %s
// RUN: not indexpool-opt %s --pass-pipeline="builtin.module(indexpool-tile-rows{threads-per-block=0})" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: indexpool-tile-rows: threads-per-block must be a multiple of 32 in [32, 1024], got 0

// CHECK-LABEL: func.func private @__indexpool_device_sm_count() -> index
// CHECK-LABEL: func.func @rows
// CHECK-DAG: %[[N:.*]] = arith.constant 1000 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[GRID:.*]] = arith.ceildivui %[[N]], %{{.*}} : index
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%[[GRID]]) step
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[C256]]) step
// CHECK: %[[FIRST:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[ROW]]]
// CHECK-LABEL: func.func @default
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: arith.ceildivui %{{.*}}, %{{.*}} : index
// CHECK: scf.parallel
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[C64]]) step
// Two dimensions: the first by the block size, the other by 1.
// CHECK-LABEL: func.func @two_d
// CHECK: %[[C64B:.*]] = arith.constant 64 : index
// CHECK: %[[STEP64:.*]] = arith.muli %{{.*}}, %[[C64B]] : index
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step (%[[STEP64]], %{{.*}}) {
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%[[STEP64]], %{{.*}}) step
// CHECK-LABEL: func.func @tiles
// CHECK-SAME: (%{{.*}}: memref<?xf32>, %{{.*}}: f32, %[[N:.*]]: index)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C160:.*]] = arith.constant 160 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[N]], %[[C160]] : index
// CHECK: %[[SMS:.*]] = call @__indexpool_device_sm_count() : () -> index
// CHECK: %[[WAVE:.*]] = arith.muli %[[SMS]], %c4 : index
// CHECK: %[[GRID:.*]] = arith.minui %[[TILES]], %[[WAVE]] : index
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

func.func @two_d(%m: memref<1000x3xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = arith.constant 1000 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c3) step (%c1, %c1) {
    memref.store %v, %m[%i, %j] : memref<1000x3xf32>
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
     indexpool.blocks_per_sm = 4 : i64}
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
