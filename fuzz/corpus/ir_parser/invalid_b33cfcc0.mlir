func.func @compress_bias(%k: tensor<8x16xbf16>, %s: tensor<8xf32>, %b: tensor<8xf32>) {
  %q, %sc, %w = indexpool.compress %k, %s bias(%b) {pool_size = 4 : i64} : (tensor<8x16xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}



