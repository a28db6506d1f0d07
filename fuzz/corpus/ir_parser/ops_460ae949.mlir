func.func @pool_per_channel_bias(%keys: tensor<1024x128xbf16>, %scores: tensor<1024x128xf32>,
                                 %ape: tensor<4x128xf32>)
    -> (tensor<256x128xbf16>, tensor<256x4x128xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores bias(%ape) {pool_size = 4 : i64, temperature = 2.0 : f32}
      : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>)
        -> (tensor<256x128xbf16>, tensor<256x4x128xf32>)
  return %pooled, %w : tensor<256x128xbf16>, tensor<256x4x128xf32>
}

