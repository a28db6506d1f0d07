func.func @score_logits_type(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xbf16>) {
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xbf16>) -> tensor<1x16xbf16>
  return
}



