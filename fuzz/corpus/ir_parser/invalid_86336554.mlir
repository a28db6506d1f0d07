func.func @score_empty_scales(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xf32>) {
  %0 = indexpool.score %q, %w, %k scales() : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xf32>) -> tensor<1x8xf32>
  return
}


