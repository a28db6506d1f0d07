func.func @score_queries_disagree(%q: tensor<?x4x8xf32>, %w: tensor<2x4xf32>, %k: tensor<16x8xf32>) {
  %0 = indexpool.score %q, %w, %k : (tensor<?x4x8xf32>, tensor<2x4xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
  return
}


