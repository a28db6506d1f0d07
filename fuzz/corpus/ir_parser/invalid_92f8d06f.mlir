func.func @reconstruct_two_residuals(%p: tensor<2x16xf32>, %r: tensor<8x16xf32>) {
  %0 = "indexpool.reconstruct"(%p, %r, %r) <{pool_size = 4 : i64}> : (tensor<2x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}


