func.func @select_width(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  %t = indexpool.select %q, %w, %k {k = 8 : i64, pool_size = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<1x16xi32>
  return
}


