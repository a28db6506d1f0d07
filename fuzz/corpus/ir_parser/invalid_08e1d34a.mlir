func.func @expand_indices_type(%i: tensor<4x16xi64>) {
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<4x16xi64>) -> tensor<4x64xi32>
  return
}


