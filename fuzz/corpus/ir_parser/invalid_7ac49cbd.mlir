func.func @score_weights_queries(%q: tensor<2x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  %l = indexpool.score %q, %w, %k : (tensor<2x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<2x16xf32>
  return
}


