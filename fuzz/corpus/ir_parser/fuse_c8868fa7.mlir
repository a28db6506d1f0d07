func.func @compress_dynamic_intermediates(%keys: tensor<1024x128xbf16>, %scores: tensor<?xf32>)
    -> (tensor<256x128xi8>, tensor<?xf32>, tensor<?x4xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<?xf32>) -> (tensor<?x?xbf16>, tensor<?x4xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %q, %s = indexpool.quantize %rot : (tensor<?x?xbf16>) -> (tensor<256x128xi8>, tensor<?xf32>)
  return %q, %s, %w : tensor<256x128xi8>, tensor<?xf32>, tensor<?x4xf32>
}


