func.func @reconstruct_empty_residual(%p: tensor<2x16xf32>) {
  %0 = indexpool.reconstruct %p residual() {pool_size = 4 : i64} : (tensor<2x16xf32>) -> tensor<8x16xf32>
  return
}


