func.func @pool_result_byte_size(%k: tensor<?x1xf32>, %s: tensor<?xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 2 : i64} : (tensor<?x1xf32>, tensor<?xf32>) -> (tensor<2305843009213693952x1xf32>, tensor<?x2xf32>)
  return
}


