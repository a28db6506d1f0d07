func.func @pool_tokens_from_scores(%k: tensor<?x8xf32>, %s: tensor<40xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<?x8xf32>, tensor<40xf32>) -> (tensor<11x8xf32>, tensor<?x4xf32>)
  return
}


