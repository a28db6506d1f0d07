func.func @no_compress_hidden_dim_mismatch(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x64xi8>, tensor<256xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x?xbf16>, tensor<256x4xf32>)
  %q, %s = indexpool.quantize %pooled : (tensor<256x?xbf16>) -> (tensor<256x64xi8>, tensor<256xf32>)
  return %q, %s : tensor<256x64xi8>, tensor<256xf32>
}


