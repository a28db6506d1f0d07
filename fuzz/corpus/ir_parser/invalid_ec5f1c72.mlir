func.func @topk_indices_rows(%l: tensor<4x16xf32>) {
  %v, %i = indexpool.topk %l {k = 8 : i64} : (tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<2x8xi32>)
  return
}



