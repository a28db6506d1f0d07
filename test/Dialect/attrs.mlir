// RUN: indexpool-opt %s -split-input-file | FileCheck %s
// Printed, parsed again and printed the same; the generic form parses too:
// RUN: indexpool-opt %s -split-input-file | indexpool-opt -split-input-file | FileCheck %s
// RUN: indexpool-opt %s -split-input-file --mlir-print-op-generic \
// RUN:   | indexpool-opt -split-input-file --verify-roundtrip | FileCheck %s

// CHECK-LABEL: func.func @launch_on_op
// CHECK: indexpool.hadamard %{{.*}} {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>} : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
func.func @launch_on_op(%x: tensor<256x128xbf16>) -> tensor<256x128xbf16> {
  %y = indexpool.hadamard %x {indexpool.launch = #indexpool.launch<chip = "sm_90",
      threads_per_block = 512, items_per_block = 32, elements_per_thread = 8,
      vector_bytes = 16, grid = tiled>}
      : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  return %y : tensor<256x128xbf16>
}

// -----

// Parameters in any order print in the declared order; the grid policy may
// be a keyword or a string.
// CHECK-LABEL: func.func @any_order
// CHECK: indexpool.launch = #indexpool.launch<chip = "sm_120", threads_per_block = 384, items_per_block = 1, elements_per_thread = 4, vector_bytes = 4, grid = grid_stride>
func.func @any_order(%l: tensor<4x64xf32>) -> tensor<4x8xi32> {
  %v, %i = indexpool.topk %l {k = 8 : i64,
      indexpool.launch = #indexpool.launch<grid = "grid_stride", vector_bytes = 4,
          elements_per_thread = 4, items_per_block = 1, threads_per_block = 384,
          chip = "sm_120">}
      : (tensor<4x64xf32>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  return %i : tensor<4x8xi32>
}

// -----

// Architecture-specific chip names and the extremes of every parameter.
// CHECK-LABEL: func.func @limits
// CHECK-SAME: launch = #indexpool.launch<chip = "sm_90a", threads_per_block = 1024, items_per_block = 1, elements_per_thread = 1, vector_bytes = 8, grid = tiled>
// CHECK-SAME: other = #indexpool.launch<chip = "sm_100f", threads_per_block = 32, items_per_block = 4096, elements_per_thread = 1024, vector_bytes = 16, grid = grid_stride>
func.func @limits() attributes {
    launch = #indexpool.launch<chip = "sm_90a", threads_per_block = 1024,
        items_per_block = 1, elements_per_thread = 1, vector_bytes = 8, grid = tiled>,
    other = #indexpool.launch<chip = "sm_100f", threads_per_block = 32,
        items_per_block = 4096, elements_per_thread = 1024, vector_bytes = 16,
        grid = grid_stride>} {
  return
}
