func.func @select_segments_two_valid(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>, %len: tensor<1xi32>) {
  %t = "indexpool.select"(%q, %w, %k, %len, %len) <{k = 2 : i64, pool_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 2>}> : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1x8xi32>
  return
}


