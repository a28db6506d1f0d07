func.func @pool_pooled_type(%k: tensor<8x8xbf16>, %s: tensor<8xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x8xbf16>, tensor<8xf32>) -> (tensor<2x8xf16>, tensor<2x4xf32>)
  return
}


