func.func @reconstruct_rows_not_multiple(%p: tensor<?x8xf32>) {
  %0 = indexpool.reconstruct %p {pool_size = 4 : i64} : (tensor<?x8xf32>) -> tensor<10x8xf32>
  return
}


