func.func @select_token_indices_beyond_i32(%q: tensor<1x1x1xf32>, %w: tensor<1x1xf32>, %k: tensor<1073741824x1xf32>) {
  %t = indexpool.select %q, %w, %k {k = 2 : i64, pool_size = 4 : i64} : (tensor<1x1x1xf32>, tensor<1x1xf32>, tensor<1073741824x1xf32>) -> tensor<1x8xi32>
  return
}


