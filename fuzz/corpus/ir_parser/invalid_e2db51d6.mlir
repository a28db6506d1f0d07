func.func @pool_not_a_tensor(%k: memref<8x8xf32>, %s: tensor<8xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (memref<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}


