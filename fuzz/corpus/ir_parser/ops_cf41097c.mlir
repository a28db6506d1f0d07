func.func @residual_reconstruct(%keys: tensor<1024x128xf32>, %pooled: tensor<256x128xf32>)
    -> (tensor<1024x128xf32>, tensor<1024x128xf32>) {
  %r = indexpool.residual %keys, %pooled {pool_size = 4 : i64}
      : (tensor<1024x128xf32>, tensor<256x128xf32>) -> tensor<1024x128xf32>
  %k0 = indexpool.reconstruct %pooled {pool_size = 4 : i64}
      : (tensor<256x128xf32>) -> tensor<1024x128xf32>
  %k = indexpool.reconstruct %pooled residual(%r) {pool_size = 4 : i64}
      : (tensor<256x128xf32>, tensor<1024x128xf32>) -> tensor<1024x128xf32>
  return %k0, %k : tensor<1024x128xf32>, tensor<1024x128xf32>
}

