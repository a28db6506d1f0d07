func.func @reconstruct_rows_disagree(%p: tensor<?x8xf32>, %r: tensor<16x8xf32>) {
  %0 = indexpool.reconstruct %p residual(%r) {pool_size = 4 : i64} : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<20x8xf32>
  return
}


