func.func private @sink(tensor<256x4xf32>)
func.func @compress_weights_used(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xbf16>)
    -> (tensor<256x128xi8>, tensor<256xf32>, tensor<256x4xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xbf16>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  func.call @sink(%w) : (tensor<256x4xf32>) -> ()
  %rot = indexpool.hadamard %pooled : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  %q, %s = indexpool.quantize %rot : (tensor<256x128xbf16>) -> (tensor<256x128xi8>, tensor<256xf32>)
  return %q, %s, %w : tensor<256x128xi8>, tensor<256xf32>, tensor<256x4xf32>
}


