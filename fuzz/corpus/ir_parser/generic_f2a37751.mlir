func.func @generic(%k: tensor<8x16xf32>, %s: tensor<8x16xbf16>, %b: tensor<4x16xbf16>,
                   %q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %len: tensor<1xi32>) -> tensor<1x8xi32> {
  %p:2 = "indexpool.pool"(%k, %s, %b) <{pool_size = 4 : i64, temperature = 0.5 : f32}>
      : (tensor<8x16xf32>, tensor<8x16xbf16>, tensor<4x16xbf16>) -> (tensor<2x16xf32>, tensor<2x4x16xf32>)
  %t = "indexpool.select"(%q, %w, %k, %len)
      <{k = 2 : i64, pool_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>}>
      : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>, tensor<1xi32>) -> tensor<1x8xi32>
  return %t : tensor<1x8xi32>
}

