func.func @compress_weights(%k: tensor<8x16xbf16>, %s: tensor<8x16xf32>) {
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64} : (tensor<8x16xbf16>, tensor<8x16xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}


