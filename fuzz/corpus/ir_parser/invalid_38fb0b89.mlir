func.func @residual_dim(%k: tensor<16x8xf32>, %p: tensor<4x4xf32>) {
  %r = indexpool.residual %k, %p {pool_size = 4 : i64} : (tensor<16x8xf32>, tensor<4x4xf32>) -> tensor<16x8xf32>
  return
}


