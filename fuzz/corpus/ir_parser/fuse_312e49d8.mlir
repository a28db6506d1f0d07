func.func @no_compress_rotated_used(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x128xbf16>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  %q, %s = indexpool.quantize %rot : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  return %q, %s, %rot : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x128xbf16>
}


