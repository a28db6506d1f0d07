func.func @compress_kpool(%keys: tensor<1024x128xbf16>, %scores: tensor<1024x128xf32>,
                          %ape: tensor<4x128xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores bias(%ape) {pool_size = 4 : i64, temperature = 2.0 : f32}
      : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>)
        -> (tensor<256x128xbf16>, tensor<256x4x128xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  %q, %s = indexpool.quantize %rot {pow2_scale}
      : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  return %q, %s, %w : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>
}


