func.func @residual_pool_size(%k: tensor<18x8xf32>, %p: tensor<3x8xf32>) {
  %r = indexpool.residual %k, %p {pool_size = 6 : i64} : (tensor<18x8xf32>, tensor<3x8xf32>) -> tensor<18x8xf32>
  return
}


