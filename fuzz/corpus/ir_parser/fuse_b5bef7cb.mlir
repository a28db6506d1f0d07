func.func @no_compress_hidden_hadamard_dim(%keys: tensor<1024x96xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<?x?xi8>, tensor<?xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x96xbf16>, tensor<1024xf32>) -> (tensor<?x?xbf16>, tensor<256x4xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %q, %s = indexpool.quantize %rot : (tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?xf32>)
  return %q, %s : tensor<?x?xi8>, tensor<?xf32>
}


