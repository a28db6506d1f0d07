func.func @topk_empty_valid(%l: tensor<2x16xf32>) {
  %v, %i = indexpool.topk %l valid() {k = 4 : i64} : (tensor<2x16xf32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  return
}


