func.func @pool_size_too_big(%k: tensor<256x8xf32>, %s: tensor<256xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 128 : i64} : (tensor<256x8xf32>, tensor<256xf32>) -> (tensor<2x8xf32>, tensor<2x128xf32>)
  return
}


