func.func @topk_values_width(%l: tensor<4x16xf32>) {
  %v, %i = indexpool.topk %l {k = 8 : i64} : (tensor<4x16xf32>) -> (tensor<4x4xf32>, tensor<4x8xi32>)
  return
}


