func.func @select_valid(%q: tensor<2x4x8xbf16>, %w: tensor<2x4xf32>, %k: tensor<16x8xbf16>, %len: tensor<1xi32>) {
  %t = indexpool.select %q, %w, %k valid(%len) {k = 8 : i64, pool_size = 4 : i64} : (tensor<2x4x8xbf16>, tensor<2x4xf32>, tensor<16x8xbf16>, tensor<1xi32>) -> tensor<2x32xi32>
  return
}


