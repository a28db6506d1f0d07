func.func @score_two_scales(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>, %k: tensor<8x16xi8>, %s: tensor<8xf32>) {
  %0 = "indexpool.score"(%q, %w, %k, %s, %s) : (tensor<1x2x16xf32>, tensor<1x2xf32>, tensor<8x16xi8>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  return
}


