func.func @f(%l: tensor<2x8xf32>) -> tensor<2x9xi32> {
  %v, %i = indexpool.topk %l {k = 9 : i64} : (tensor<2x8xf32>) -> (tensor<2x9xf32>, tensor<2x9xi32>)
  return %i : tensor<2x9xi32>
}
