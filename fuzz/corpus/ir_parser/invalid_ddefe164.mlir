func.func @score_weights_type(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xbf16>, %k: tensor<16x8xbf16>) {
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xbf16>, tensor<16x8xbf16>) -> tensor<1x16xf32>
  return
}


