func.func @pool_bias_granularity_token(%k: tensor<8x8xf32>, %s: tensor<8xf32>, %b: tensor<4x8xf32>) {
  %p, %w = indexpool.pool %k, %s bias(%b) {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}


