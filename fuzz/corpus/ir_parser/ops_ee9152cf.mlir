func.func @select(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<4096x128xf8E4M3FN>,
                  %s: tensor<4096xf32>, %len: tensor<1xi32>, %dk: tensor<?x128xbf16>)
    -> (tensor<1x2048xi32>, tensor<1x64xi32>, tensor<1x64xi32>) {
  %tok = indexpool.select %q, %w, %keys scales(%s) valid(%len) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>, tensor<1xi32>)
        -> tensor<1x2048xi32>
  %t2 = indexpool.select %q, %w, %dk {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<?x128xbf16>) -> tensor<1x64xi32>
  %t3 = indexpool.select %q, %w, %dk valid(%len) {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<?x128xbf16>, tensor<1xi32>) -> tensor<1x64xi32>
  return %tok, %t2, %t3 : tensor<1x2048xi32>, tensor<1x64xi32>, tensor<1x64xi32>
}

