func.func @f(%i: tensor<2x8xi32>) -> tensor<2x32xi32> {
  %t = "indexpool.expand"(%i) : (tensor<2x8xi32>) -> tensor<2x32xi32>
  return %t : tensor<2x32xi32>
}
