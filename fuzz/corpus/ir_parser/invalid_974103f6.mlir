func.func @select_rows_disagree(%q: tensor<?x4x8xf32>, %w: tensor<?x4xf32>, %k: tensor<16x8xf32>, %len: tensor<2xi32>) {
  %t = indexpool.select %q, %w, %k valid(%len) {k = 2 : i64, pool_size = 4 : i64} : (tensor<?x4x8xf32>, tensor<?x4xf32>, tensor<16x8xf32>, tensor<2xi32>) -> tensor<3x8xi32>
  return
}


