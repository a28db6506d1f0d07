func.func @select_segments_empty_query(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>, %len: tensor<1xi32>) {
  %t = "indexpool.select"(%q, %w, %k, %len) <{k = 2 : i64, pool_size = 4 : i64, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1>}> : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>, tensor<1xi32>) -> tensor<1x8xi32>
  return
}


