func.func @pool_weights_channels(%k: tensor<8x8xf32>, %s: tensor<8x8xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<2x4x16xf32>)
  return
}


