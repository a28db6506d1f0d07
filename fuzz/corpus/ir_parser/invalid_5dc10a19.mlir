func.func @topk_valid_shape(%l: tensor<4x16xf32>, %len: tensor<8xi32>) {
  %v, %i = indexpool.topk %l valid(%len) {k = 8 : i64} : (tensor<4x16xf32>, tensor<8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  return
}


