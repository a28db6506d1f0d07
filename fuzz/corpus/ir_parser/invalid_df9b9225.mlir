func.func @score_scales_entries(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xi8>, %s: tensor<8xf32>) {
  %l = indexpool.score %q, %w, %k scales(%s) : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xi8>, tensor<8xf32>) -> tensor<1x16xf32>
  return
}


