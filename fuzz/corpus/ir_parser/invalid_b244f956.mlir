func.func @compress_empty_bias(%k: tensor<8x16xf32>, %s: tensor<8xf32>) {
  %q, %sc, %w = indexpool.compress %k, %s bias() {pool_size = 4 : i64} : (tensor<8x16xf32>, tensor<8xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}


