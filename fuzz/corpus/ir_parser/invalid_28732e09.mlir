func.func @pool_scores_type(%k: tensor<8x8xf32>, %s: tensor<8xi32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xf32>, tensor<8xi32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}


