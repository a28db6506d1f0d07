func.func @pool_dynamic(%keys: tensor<?x?xf32>, %scores: tensor<?x?xbf16>)
    -> (tensor<?x?xf32>, tensor<?x4x?xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<?x?xf32>, tensor<?x?xbf16>) -> (tensor<?x?xf32>, tensor<?x4x?xf32>)
  return %pooled, %w : tensor<?x?xf32>, tensor<?x4x?xf32>
}

