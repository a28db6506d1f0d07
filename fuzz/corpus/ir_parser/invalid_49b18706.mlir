func.func @expand_dynamic_k_tokens_beyond_i32(%i: tensor<1x?xi32>) {
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<1x?xi32>) -> tensor<1x4294967296xi32>
  return
}


