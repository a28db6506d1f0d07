// --indexpool-to-loops records an op's #indexpool.launch on its row loops
// for --indexpool-tile-rows: the block size (at most 256 threads for a row
// loop), the tile (items_per_block, but at least one row per thread: a row
// loop runs one thread per row) and, for grid = grid_stride, the blocks of
// that size one SM of the chip holds (8 of 256 threads on sm_90 and sm_80:
// a wave is that many per SM of the device, whose SM count
// --indexpool-tile-rows asks for at run time). A tiled grid records none.
// RUN: indexpool-opt %s -split-input-file --indexpool-to-loops | FileCheck %s

// CHECK-LABEL: func.func @grid_stride
// CHECK: scf.reduce
// CHECK-NEXT: } {indexpool.blocks_per_sm = 8 : i64, indexpool.items_per_block = 256 : i64, indexpool.threads_per_block = 256 : i64
func.func @grid_stride(%q: tensor<65536x128xi8>, %s: tensor<65536xf32>) -> tensor<65536x128xf32> {
  %x = indexpool.dequantize %q, %s {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 64, elements_per_thread = 4, vector_bytes = 16, grid = grid_stride>} : (tensor<65536x128xi8>, tensor<65536xf32>) -> tensor<65536x128xf32>
  return %x : tensor<65536x128xf32>
}

// -----

// CHECK-LABEL: func.func @tiled
// CHECK: scf.reduce
// CHECK-NEXT: } {indexpool.items_per_block = 512 : i64, indexpool.threads_per_block = 128 : i64
// CHECK-NOT: indexpool.blocks_per_sm
func.func @tiled(%q: tensor<4096x64xi8>, %s: tensor<4096xf32>) -> tensor<4096x64xf16> {
  %x = indexpool.dequantize %q, %s {indexpool.launch = #indexpool.launch<chip = "sm_80", threads_per_block = 128, items_per_block = 512, elements_per_thread = 4, vector_bytes = 16, grid = tiled>} : (tensor<4096x64xi8>, tensor<4096xf32>) -> tensor<4096x64xf16>
  return %x : tensor<4096x64xf16>
}
