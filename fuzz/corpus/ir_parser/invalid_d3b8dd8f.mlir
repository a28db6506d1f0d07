func.func @select_k_too_big(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  %t = indexpool.select %q, %w, %k {k = 17 : i64, pool_size = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<1x68xi32>
  return
}


