func.func @pool_groups_disagree(%k: tensor<?x8xf32>, %s: tensor<?xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<?x8xf32>, tensor<?xf32>) -> (tensor<10x8xf32>, tensor<11x4xf32>)
  return
}


