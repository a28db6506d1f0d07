func.func @score_entries_disagree(%q: tensor<1x4x8xf32>, %w: tensor<1x4xf32>, %k: tensor<?x8xi8>, %s: tensor<16xf32>) {
  %0 = indexpool.score %q, %w, %k scales(%s) : (tensor<1x4x8xf32>, tensor<1x4xf32>, tensor<?x8xi8>, tensor<16xf32>) -> tensor<1x15xf32>
  return
}


