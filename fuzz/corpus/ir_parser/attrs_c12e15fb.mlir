func.func @any_order(%l: tensor<4x64xf32>) -> tensor<4x8xi32> {
  %v, %i = indexpool.topk %l {k = 8 : i64,
      indexpool.launch = #indexpool.launch<grid = "grid_stride", vector_bytes = 4,
          elements_per_thread = 4, items_per_block = 1, threads_per_block = 384,
          chip = "sm_120">}
      : (tensor<4x64xf32>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  return %i : tensor<4x8xi32>
}


