func.func @reconstruct_residual_rows(%p: tensor<4x8xf32>, %r: tensor<15x8xf32>) {
  %k = indexpool.reconstruct %p residual(%r) {pool_size = 4 : i64} : (tensor<4x8xf32>, tensor<15x8xf32>) -> tensor<16x8xf32>
  return
}


