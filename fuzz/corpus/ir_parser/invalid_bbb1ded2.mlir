func.func @score_weights_heads(%q: tensor<1x4x8xbf16>, %w: tensor<1x8xf32>, %k: tensor<16x8xbf16>) {
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x8xf32>, tensor<16x8xbf16>) -> tensor<1x16xf32>
  return
}


