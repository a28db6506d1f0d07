func.func @compress_no_scores(%k: tensor<8x16xf32>) {
  %c:3 = "indexpool.compress"(%k) <{pool_size = 4 : i64}> : (tensor<8x16xf32>) -> (tensor<2x16xi8>, tensor<2xf32>, tensor<2x4xf32>)
  return
}


