func.func @no_compress_weights_quantized(%keys: tensor<256x4xf32>, %scores: tensor<256xf32>)
    -> (tensor<64x4xf32>, tensor<64x4xi8>, tensor<64xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<256x4xf32>, tensor<256xf32>) -> (tensor<64x4xf32>, tensor<64x4xf32>)
  %q, %s = indexpool.quantize %w : (tensor<64x4xf32>) -> (tensor<64x4xi8>, tensor<64xf32>)
  return %pooled, %q, %s : tensor<64x4xf32>, tensor<64x4xi8>, tensor<64xf32>
}


