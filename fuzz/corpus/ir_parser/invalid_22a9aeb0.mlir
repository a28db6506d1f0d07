func.func @score_int8_without_scales(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xi8>) {
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xi8>) -> tensor<1x16xf32>
  return
}


