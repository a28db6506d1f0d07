func.func @topk_rows_disagree(%l: tensor<?x16xf32>, %v: tensor<3xi32>) {
  %0, %1 = indexpool.topk %l valid(%v) {k = 4 : i64} : (tensor<?x16xf32>, tensor<3xi32>) -> (tensor<2x4xf32>, tensor<?x4xi32>)
  return
}


