func.func @residual_groups(%k: tensor<16x8xf32>, %p: tensor<3x8xf32>) {
  %r = indexpool.residual %k, %p {pool_size = 4 : i64} : (tensor<16x8xf32>, tensor<3x8xf32>) -> tensor<12x8xf32>
  return
}


