func.func @pool_no_scores(%k: tensor<8x16xf32>) {
  %p:2 = "indexpool.pool"(%k) <{pool_size = 4 : i64}> : (tensor<8x16xf32>) -> (tensor<2x16xf32>, tensor<2x4xf32>)
  return
}


