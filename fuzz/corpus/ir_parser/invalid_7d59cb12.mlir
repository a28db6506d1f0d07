func.func @pool_size_one(%k: tensor<4x8xf32>, %s: tensor<4xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 1 : i64} : (tensor<4x8xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>)
  return
}


