func.func @g(%k: tensor<8x16xf32>, %s: tensor<8xf32>) -> (tensor<2x16xf32>, tensor<2x4xf32>) {
  %p:2 = "indexpool.pool"(%k, %s, %s, %s) <{pool_size = 4 : i64}> : (tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x16xf32>, tensor<2x4xf32>)
  return %p#0, %p#1 : tensor<2x16xf32>, tensor<2x4xf32>
}
