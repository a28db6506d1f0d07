func.func @pool_groups_floor(%k: tensor<11x8xf32>, %s: tensor<11xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<11x8xf32>, tensor<11xf32>) -> (tensor<3x8xf32>, tensor<3x4xf32>)
  return
}


