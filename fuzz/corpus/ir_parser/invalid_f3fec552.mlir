func.func @select_k_times_p_overflow(%q: tensor<1x1x8xf32>, %w: tensor<1x1xf32>, %k: tensor<?x8xf32>) {
  %t = indexpool.select %q, %w, %k {k = 4611686018427387904 : i64, pool_size = 4 : i64} : (tensor<1x1x8xf32>, tensor<1x1xf32>, tensor<?x8xf32>) -> tensor<1x?xi32>
  return
}


