func.func @compress_rotate_dim(%k: tensor<8x96xbf16>, %s: tensor<8xf32>) {
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64, rotate} : (tensor<8x96xbf16>, tensor<8xf32>) -> (tensor<2x96xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}


