func.func @compress_min_absmax(%k: tensor<8x16xbf16>, %s: tensor<8xf32>) {
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64, min_absmax = -1.0 : f32} : (tensor<8x16xbf16>, tensor<8xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}


