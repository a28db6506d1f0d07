func.func @compress_two_biases(%k: tensor<8x16xf32>, %s: tensor<8xf32>, %b: tensor<4xf32>) {
  %c:3 = "indexpool.compress"(%k, %s, %b, %b) <{pool_size = 4 : i64}> : (tensor<8x16xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}


