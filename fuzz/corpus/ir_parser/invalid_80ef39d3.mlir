func.func @select_columns_beyond_i32(%q: tensor<1x1x1xf32>, %w: tensor<1x1xf32>, %k: tensor<2147483648x1xf32>) {
  %t = indexpool.select %q, %w, %k {k = 2 : i64, pool_size = 2 : i64} : (tensor<1x1x1xf32>, tensor<1x1xf32>, tensor<2147483648x1xf32>) -> tensor<1x4xi32>
  return
}


