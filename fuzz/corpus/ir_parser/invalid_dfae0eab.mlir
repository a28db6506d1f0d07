func.func @compress_min_absmax_f8(%k: tensor<8x16xbf16>, %s: tensor<8xf32>) {
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64, min_absmax = 2.0e-36 : f32} : (tensor<8x16xbf16>, tensor<8xf32>) -> (tensor<2x16xf8E4M3FN>, tensor<2xf32>, tensor<2x4xf32>)
  return
}


