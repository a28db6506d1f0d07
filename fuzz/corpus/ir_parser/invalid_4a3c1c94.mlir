func.func @select_empty_valid(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>) {
  %t = indexpool.select %q, %w, %k valid() {k = 2 : i64, pool_size = 4 : i64} : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>) -> tensor<1x8xi32>
  return
}


