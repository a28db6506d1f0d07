func.func @limits() attributes {
    launch = #indexpool.launch<chip = "sm_90a", threads_per_block = 1024,
        items_per_block = 1, elements_per_thread = 1, vector_bytes = 8, grid = tiled>,
    other = #indexpool.launch<chip = "sm_100f", threads_per_block = 32,
        items_per_block = 4096, elements_per_thread = 1024, vector_bytes = 16,
        grid = grid_stride>} {
  return
}

