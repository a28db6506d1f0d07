func.func @reconstruct_pooled_type(%p: tensor<4x8xi8>) {
  %k = indexpool.reconstruct %p {pool_size = 4 : i64} : (tensor<4x8xi8>) -> tensor<16x8xf32>
  return
}



