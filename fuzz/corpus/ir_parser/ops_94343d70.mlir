func.func @residual_tail_dynamic(%keys: tensor<1026x128xbf16>, %pooled: tensor<256x128xbf16>,
                                 %p: tensor<?x?xf16>, %r: tensor<?x?xf16>)
    -> (tensor<1024x128xf32>, tensor<?x?xf16>) {
  %res = indexpool.residual %keys, %pooled {pool_size = 4 : i64}
      : (tensor<1026x128xbf16>, tensor<256x128xbf16>) -> tensor<1024x128xf32>
  %k = indexpool.reconstruct %p residual(%r) {pool_size = 2 : i64}
      : (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
  return %res, %k : tensor<1024x128xf32>, tensor<?x?xf16>
}

