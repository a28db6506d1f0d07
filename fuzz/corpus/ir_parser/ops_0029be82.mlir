func.func @expand(%idx: tensor<4x64xi32>, %d: tensor<?x?xi32>) -> (tensor<4x256xi32>, tensor<?x?xi32>) {
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<4x64xi32>) -> tensor<4x256xi32>
  %t2 = indexpool.expand %d {pool_size = 64 : i64} : (tensor<?x?xi32>) -> tensor<?x?xi32>
  return %tok, %t2 : tensor<4x256xi32>, tensor<?x?xi32>
}

