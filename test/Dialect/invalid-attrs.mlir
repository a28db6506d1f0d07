// RUN: indexpool-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{threads-per-block must be a multiple of 32 in [32, 1024], got 100}}
func.func @threads_not_warps() attributes {l = #indexpool.launch<chip = "sm_90", threads_per_block = 100, items_per_block = 1, elements_per_thread = 8, vector_bytes = 16, grid = tiled>} {
  return
}

// -----

// expected-error @+1 {{threads-per-block must be a multiple of 32 in [32, 1024], got 2048}}
func.func @threads_too_many() attributes {l = #indexpool.launch<chip = "sm_90", threads_per_block = 2048, items_per_block = 1, elements_per_thread = 8, vector_bytes = 16, grid = tiled>} {
  return
}

// -----

// expected-error @+1 {{threads-per-block must be a multiple of 32 in [32, 1024], got 0}}
func.func @threads_zero() attributes {l = #indexpool.launch<chip = "sm_90", threads_per_block = 0, items_per_block = 1, elements_per_thread = 8, vector_bytes = 16, grid = tiled>} {
  return
}

// -----

// expected-error @+1 {{items_per_block must be positive, got 0}}
func.func @no_items() attributes {l = #indexpool.launch<chip = "sm_90", threads_per_block = 256, items_per_block = 0, elements_per_thread = 8, vector_bytes = 16, grid = tiled>} {
  return
}

// -----

// expected-error @+1 {{elements_per_thread must be positive, got -8}}
func.func @negative_elements() attributes {l = #indexpool.launch<chip = "sm_90", threads_per_block = 256, items_per_block = 1, elements_per_thread = -8, vector_bytes = 16, grid = tiled>} {
  return
}

// -----

// expected-error @+1 {{vector_bytes must be 4, 8 or 16, got 12}}
func.func @odd_vector() attributes {l = #indexpool.launch<chip = "sm_90", threads_per_block = 256, items_per_block = 1, elements_per_thread = 8, vector_bytes = 12, grid = tiled>} {
  return
}

// -----

// expected-error @+1 {{vector_bytes must be 4, 8 or 16, got 32}}
func.func @wide_vector() attributes {l = #indexpool.launch<chip = "sm_90", threads_per_block = 256, items_per_block = 1, elements_per_thread = 8, vector_bytes = 32, grid = tiled>} {
  return
}

// -----

// expected-error @+1 {{chip must be named like "sm_90", got "h100"}}
func.func @not_a_chip() attributes {l = #indexpool.launch<chip = "h100", threads_per_block = 256, items_per_block = 1, elements_per_thread = 8, vector_bytes = 16, grid = tiled>} {
  return
}

// -----

// expected-error @+2 {{expected ::mlir::indexpool::GridPolicy to be one of: tiled, grid_stride}}
// expected-error @+1 {{failed to parse IndexPool_LaunchAttr parameter 'grid'}}
func.func @bad_grid() attributes {l = #indexpool.launch<chip = "sm_90", threads_per_block = 256, items_per_block = 1, elements_per_thread = 8, vector_bytes = 16, grid = diagonal>} {
  return
}

// -----

// The generated struct parser wants all six parameters.
// expected-error @+1 {{expected ','}}
func.func @missing_grid() attributes {l = #indexpool.launch<chip = "sm_90", threads_per_block = 256, items_per_block = 1, elements_per_thread = 8, vector_bytes = 16>} {
  return
}

// -----

func.func @launch_not_an_attr(%x: tensor<256x128xbf16>) -> tensor<256x128xbf16> {
  // expected-error @+1 {{'indexpool.launch' must be a #indexpool.launch attribute, got 256 : i64}}
  %y = indexpool.hadamard %x {indexpool.launch = 256 : i64}
      : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  return %y : tensor<256x128xbf16>
}
