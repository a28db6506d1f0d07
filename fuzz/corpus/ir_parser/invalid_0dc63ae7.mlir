func.func @pool_missing_pool_size(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  %p, %w = indexpool.pool %k, %s : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}



