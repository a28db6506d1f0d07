func.func @pool_bias_type(%k: tensor<8x8xf32>, %s: tensor<8xf32>, %b: tensor<4xi32>) {
  %p, %w = indexpool.pool %k, %s bias(%b) {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xf32>, tensor<4xi32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}


