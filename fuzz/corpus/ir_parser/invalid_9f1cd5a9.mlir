func.func @reconstruct_result_dim(%p: tensor<4x8xf32>) {
  %k = indexpool.reconstruct %p {pool_size = 4 : i64} : (tensor<4x8xf32>) -> tensor<16x16xf32>
  return
}


