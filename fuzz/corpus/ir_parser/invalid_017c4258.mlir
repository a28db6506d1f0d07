func.func @pool_two_biases(%k: tensor<8x16xf32>, %s: tensor<8xf32>, %b: tensor<4xf32>) {
  %p:2 = "indexpool.pool"(%k, %s, %b, %b) <{pool_size = 4 : i64}> : (tensor<8x16xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x16xf32>, tensor<2x4xf32>)
  return
}


