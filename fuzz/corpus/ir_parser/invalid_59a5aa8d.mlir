func.func @pool_size_not_pow2(%k: tensor<12x8xf32>, %s: tensor<12xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 3 : i64} : (tensor<12x8xf32>, tensor<12xf32>) -> (tensor<4x8xf32>, tensor<4x3xf32>)
  return
}


