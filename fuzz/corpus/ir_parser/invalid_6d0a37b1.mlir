func.func @topk_k_negative(%l: tensor<4x16xf32>) {
  %v, %i = indexpool.topk %l {k = -3 : i64} : (tensor<4x16xf32>) -> (tensor<4x?xf32>, tensor<4x?xi32>)
  return
}


