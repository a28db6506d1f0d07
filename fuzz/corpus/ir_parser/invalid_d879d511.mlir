func.func @topk_valid_type(%l: tensor<4x16xf32>, %len: tensor<4xi64>) {
  %v, %i = indexpool.topk %l valid(%len) {k = 8 : i64} : (tensor<4x16xf32>, tensor<4xi64>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  return
}


