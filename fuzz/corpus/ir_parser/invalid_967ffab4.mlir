func.func @expand_dynamic_k_not_multiple(%i: tensor<1x?xi32>) {
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<1x?xi32>) -> tensor<1x10xi32>
  return
}


