func.func @index_limits(%l: tensor<1x2147483647xf32>, %q: tensor<1x1x1xf32>, %w: tensor<1x1xf32>,
                        %k: tensor<536870912x1xf32>, %i: tensor<1x536870912xi32>) {
  %v, %idx = indexpool.topk %l {k = 2147483647 : i64}
      : (tensor<1x2147483647xf32>) -> (tensor<1x2147483647xf32>, tensor<1x2147483647xi32>)
  %t = indexpool.select %q, %w, %k {k = 2 : i64, pool_size = 4 : i64}
      : (tensor<1x1x1xf32>, tensor<1x1xf32>, tensor<536870912x1xf32>) -> tensor<1x8xi32>
  %e = indexpool.expand %i {pool_size = 4 : i64} : (tensor<1x536870912xi32>) -> tensor<1x2147483648xi32>
  return
}

