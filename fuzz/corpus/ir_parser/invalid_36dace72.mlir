func.func @select_without_scales(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xi8>) {
  %t = indexpool.select %q, %w, %k {k = 8 : i64, pool_size = 4 : i64} : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xi8>) -> tensor<1x32xi32>
  return
}


