func.func @topk_two_valid(%l: tensor<2x16xf32>, %v: tensor<2xi32>) {
  %0:2 = "indexpool.topk"(%l, %v, %v) <{k = 4 : i64}> : (tensor<2x16xf32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  return
}


