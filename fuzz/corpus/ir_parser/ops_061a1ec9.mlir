func.func @pool_per_token(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x128xbf16>, tensor<256x4xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  return %pooled, %w : tensor<256x128xbf16>, tensor<256x4xf32>
}

