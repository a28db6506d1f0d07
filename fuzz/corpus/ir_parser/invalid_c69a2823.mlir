func.func @compress_codes_type(%k: tensor<8x16xbf16>, %s: tensor<8xf32>) {
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64} : (tensor<8x16xbf16>, tensor<8xf32>) -> (tensor<2x16xbf16>, tensor<2xf32>, tensor<2x4xf32>)
  return
}


