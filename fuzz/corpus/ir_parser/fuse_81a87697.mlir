func.func @compress_f32_keys(%keys: tensor<64x32xf32>, %scores: tensor<64xf32>)
    -> (tensor<32x32xi8>, tensor<32xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 2 : i64}
      : (tensor<64x32xf32>, tensor<64xf32>) -> (tensor<32x32xf32>, tensor<32x2xf32>)
  %q, %s = indexpool.quantize %pooled : (tensor<32x32xf32>) -> (tensor<32x32xi8>, tensor<32xf32>)
  return %q, %s : tensor<32x32xi8>, tensor<32xf32>
}


