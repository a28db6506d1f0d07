// Every field of #indexpool.launch changes the kernels of
// --indexpool-to-gpu-kernels (the attribute's documentation says how, per
// op): `grid` (one block per tile, or min(tiles, one wave) blocks and a
// grid-stride loop), `items_per_block` (the tile; a loop over the steps of
// a tile larger than the block's row groups), `vector_bytes` and
// `elements_per_thread` (the row layout: the access width vector<NxT>).
// The kernels so configured are run in
// test/Integration/GPUEmulator/launch-fields.mlir. The scores are the
// CUDA-core kernels here (tensor-cores=false): the tensor-core kernel takes
// threads_per_block, vector_bytes and grid, and tiles of 8 key rows per
// warp instead of items_per_block (score-mma.mlir).
// RUN: indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels="chip=sm_90 tensor-cores=false" | FileCheck %s

// A tile of 8 rows = the 8 row groups of 128 threads (16 lanes of 8 bf16):
// ceil(rows / 8) blocks, no loop.
// CHECK-LABEL: func.func @tiled
// CHECK: %[[TILES:.*]] = arith.ceildivui %{{.*}}, %c8 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[TILES]], %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c128,
// CHECK-NOT: scf.for
// CHECK: vector.load {{.*}} vector<8xbf16>
func.func @tiled(%x: tensor<?x128xbf16>) -> (tensor<?x128xi8>, tensor<?xf32>) {
  %c, %s = indexpool.quantize %x
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 128, items_per_block = 8,
           elements_per_thread = 8, vector_bytes = 16, grid = tiled>}
      : (tensor<?x128xbf16>) -> (tensor<?x128xi8>, tensor<?xf32>)
  return %c, %s : tensor<?x128xi8>, tensor<?xf32>
}

// -----

// grid_stride: min(tiles, the device's SMs x 16 blocks of 128 threads) blocks stride
// over the tiles; a tile of 20 rows is 3 steps of the 8 row groups, the
// last one with 4 idle groups (slot < 20).
// CHECK-LABEL: func.func @grid_stride
// CHECK-DAG: %[[TILES:.*]] = arith.ceildivui %{{.*}}, %c20 : index
// CHECK-DAG: %[[SMS:.*]] = call @__indexpool_device_sm_count() : () -> index
// CHECK-DAG: %[[WAVE:.*]] = arith.muli %[[SMS]], %c16 : index
// CHECK: %[[GRID:.*]] = arith.minui %[[TILES]], %[[WAVE]] : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]],
// CHECK: scf.for %[[TILE:.*]] = %[[B]] to %[[TILES]] step %[[GRID]] {
// CHECK: scf.for %[[STEP:.*]] = %c0 to %c3 step %c1 {
// CHECK: %[[GROUP:.*]] = arith.divui %{{.*}}, %c16 : index
// CHECK: %[[S:.*]] = arith.muli %[[STEP]], %c8 : index
// CHECK: %[[SLOT:.*]] = arith.addi %[[S]], %[[GROUP]] : index
// CHECK: arith.muli %[[TILE]], %c20 : index
// CHECK: arith.cmpi ult, %[[SLOT]], %c20 : index
// CHECK: vector.load {{.*}} vector<8xbf16>
func.func @grid_stride(%x: tensor<?x128xbf16>) -> (tensor<?x128xi8>, tensor<?xf32>) {
  %c, %s = indexpool.quantize %x
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 128, items_per_block = 20,
           elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>}
      : (tensor<?x128xbf16>) -> (tensor<?x128xi8>, tensor<?xf32>)
  return %c, %s : tensor<?x128xi8>, tensor<?xf32>
}

// -----

// vector_bytes = 8, elements_per_thread = 8: 4 bf16 per access, 2 chunks,
// 16 lanes; the rotation shuffles over 16 lanes, then pairs the chunks.
// CHECK-LABEL: func.func @vector_bytes_8
// CHECK: vector.load {{.*}} {alignment = 8 : i64} : memref<64x128xbf16>, vector<4xbf16>
// CHECK: vector.load {{.*}} {alignment = 8 : i64} : memref<64x128xbf16>, vector<4xbf16>
// CHECK-NOT: vector<8xbf16>
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32
// CHECK-NOT: gpu.shuffle xor %{{.*}}, %c16_i32
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: vector.store {{.*}} vector<4xbf16>
func.func @vector_bytes_8(%x: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %y = indexpool.hadamard %x
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 4,
           elements_per_thread = 8, vector_bytes = 8, grid = tiled>}
      : (tensor<64x128xbf16>) -> tensor<64x128xbf16>
  return %y : tensor<64x128xbf16>
}

// -----

// vector_bytes = 4 of f32: one element per access, 8 chunks of 32 lanes.
// CHECK-LABEL: func.func @vector_bytes_4
// CHECK-COUNT-8: vector.load {{.*}} {alignment = 4 : i64} : memref<16x256xf32>, vector<1xf32>
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32
func.func @vector_bytes_4(%x: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %y = indexpool.hadamard %x
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 2,
           elements_per_thread = 8, vector_bytes = 4, grid = tiled>}
      : (tensor<16x256xf32>) -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
}

// -----

// Fields that make no layout (24 elements per thread do not divide D = 64):
// the 16-byte layout, 8 lanes of 8 bf16.
// CHECK-LABEL: func.func @no_layout
// CHECK: vector.load {{.*}} vector<8xbf16>
func.func @no_layout(%x: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %y = indexpool.hadamard %x
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 8,
           elements_per_thread = 24, vector_bytes = 8, grid = tiled>}
      : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %y : tensor<64x64xbf16>
}

// -----

// score, tiled: one block per tile of 50 key rows and query row; the
// threads loop over the tile; keys read 8 bytes (4 bf16) at a time.
// CHECK-LABEL: func.func @score_tiled
// CHECK: gpu.launch blocks(%[[B:.*]], %[[M:.*]], %{{.*}}) in (%{{.*}} = %c7, %{{.*}} = %c2,
// CHECK-NOT: scf.for %{{.*}} = %[[B]]
// CHECK: %[[FIRST:.*]] = arith.muli %[[B]], %c50 : index
// CHECK: vector.load {{.*}} : memref<333x64xbf16>, vector<4xbf16>
func.func @score_tiled(%q: tensor<2x64x64xbf16>, %w: tensor<2x64xf32>,
                       %k: tensor<333x64xbf16>) -> tensor<2x333xf32> {
  %l = indexpool.score %q, %w, %k
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 32, items_per_block = 50,
           elements_per_thread = 8, vector_bytes = 8, grid = tiled>}
      : (tensor<2x64x64xbf16>, tensor<2x64xf32>, tensor<333x64xbf16>) -> tensor<2x333xf32>
  return %l : tensor<2x333xf32>
}

// -----

// score, grid_stride: one block per SM (registers) and query row.
// CHECK-LABEL: func.func @score_stride
// CHECK-DAG: %[[SMS:.*]] = call @__indexpool_device_sm_count() : () -> index
// CHECK-DAG: %[[TILES:.*]] = arith.ceildivui %{{.*}}, %c16 : index
// CHECK: %[[GRID:.*]] = arith.minui %[[TILES]], %[[SMS]] : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]],
// CHECK: scf.for %{{.*}} = %[[B]] to %[[TILES]] step %[[GRID]] {
// CHECK: vector.load {{.*}} vector<16xf8E4M3FN>
func.func @score_stride(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                        %k: tensor<?x128xf8E4M3FN>, %s: tensor<?xf32>) -> tensor<1x?xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 256, items_per_block = 16,
           elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<?x128xf8E4M3FN>, tensor<?xf32>) -> tensor<1x?xf32>
  return %l : tensor<1x?xf32>
}

// -----

// topk: tiles of 3 rows, a row at a time (a barrier before each), a wave of
// the device's SMs x 32 blocks of 64 threads striding over the tiles.
// CHECK-LABEL: func.func @topk_stride
// CHECK-DAG: %[[TILES:.*]] = arith.ceildivui %{{.*}}, %c3 : index
// CHECK-DAG: %[[SMS:.*]] = call @__indexpool_device_sm_count() : () -> index
// CHECK-DAG: %[[WAVE:.*]] = arith.muli %[[SMS]], %c32 : index
// CHECK: %[[GRID:.*]] = arith.minui %[[TILES]], %[[WAVE]] : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]],
// CHECK: scf.for %[[TILE:.*]] = %[[B]] to %[[TILES]] step %[[GRID]] {
// CHECK: scf.for %[[R:.*]] = %c0 to %c3 step %c1 {
// CHECK: scf.if
// CHECK-NEXT: gpu.barrier
func.func @topk_stride(%x: tensor<?x300xf32>) -> (tensor<?x40xf32>, tensor<?x40xi32>) {
  %v, %i = indexpool.topk %x
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 3,
           elements_per_thread = 4, vector_bytes = 16, grid = grid_stride>, k = 40 : i64}
      : (tensor<?x300xf32>) -> (tensor<?x40xf32>, tensor<?x40xi32>)
  return %v, %i : tensor<?x40xf32>, tensor<?x40xi32>
}

// -----

// expand: one block per tile of 2 query rows; the threads take the tile's
// 2 x 100 entries in order.
// CHECK-LABEL: func.func @expand_tiled
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c3,
// CHECK: %[[FIRST:.*]] = arith.muli %[[B]], %c200 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 {
func.func @expand_tiled(%i: tensor<5x100xi32>) -> tensor<5x400xi32> {
  %t = indexpool.expand %i
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 2,
           elements_per_thread = 4, vector_bytes = 16, grid = tiled>, pool_size = 4 : i64}
      : (tensor<5x100xi32>) -> tensor<5x400xi32>
  return %t : tensor<5x400xi32>
}
