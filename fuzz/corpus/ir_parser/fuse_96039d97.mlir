func.func @compress_dynamic(%keys: tensor<?x?xf32>, %scores: tensor<?x?xbf16>)
    -> (tensor<?x?xf8E4M3FN>, tensor<?xf32>, tensor<?x4x?xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<?x?xf32>, tensor<?x?xbf16>) -> (tensor<?x?xf32>, tensor<?x4x?xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %q, %s = indexpool.quantize %rot : (tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?xf32>)
  return %q, %s, %w : tensor<?x?xf8E4M3FN>, tensor<?xf32>, tensor<?x4x?xf32>
}


