func.func @pool_dim_disagree(%k: tensor<8x?xf32>, %s: tensor<8x?xf32>, %b: tensor<4x16xf32>) {
  %p, %w = indexpool.pool %k, %s bias(%b) {pool_size = 4 : i64} : (tensor<8x?xf32>, tensor<8x?xf32>, tensor<4x16xf32>) -> (tensor<2x8xf32>, tensor<2x4x?xf32>)
  return
}


