func.func @expand_pool_size(%i: tensor<4x16xi32>) {
  %t = indexpool.expand %i {pool_size = 5 : i64} : (tensor<4x16xi32>) -> tensor<4x80xi32>
  return
}



