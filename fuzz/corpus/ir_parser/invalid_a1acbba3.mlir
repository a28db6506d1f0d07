func.func @pool_scores_channels(%k: tensor<8x8xf32>, %s: tensor<8x16xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8x16xf32>) -> (tensor<2x8xf32>, tensor<2x4x8xf32>)
  return
}


