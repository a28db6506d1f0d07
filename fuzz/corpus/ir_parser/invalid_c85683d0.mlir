func.func @score_keys_dim(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x16xbf16>) {
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x16xbf16>) -> tensor<1x16xf32>
  return
}


