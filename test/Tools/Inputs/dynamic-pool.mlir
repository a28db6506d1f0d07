func.func @pool(%k: tensor<?x64xf32>, %s: tensor<?xf32>) -> tensor<?x64xf32> {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<?x64xf32>, tensor<?xf32>) -> (tensor<?x64xf32>, tensor<?x4xf32>)
  return %p : tensor<?x64xf32>
}
