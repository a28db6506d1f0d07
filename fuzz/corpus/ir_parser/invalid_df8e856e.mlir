func.func @score_no_keys(%q: tensor<1x2x16xf32>, %w: tensor<1x2xf32>) {
  %0 = "indexpool.score"(%q, %w) : (tensor<1x2x16xf32>, tensor<1x2xf32>) -> tensor<1x8xf32>
  return
}


