func.func @score_quantized_without_scales(%q: tensor<1x4x8xbf16>, %w: tensor<1x4xf32>, %k: tensor<16x8xf8E4M3FN>) {
  %l = indexpool.score %q, %w, %k : (tensor<1x4x8xbf16>, tensor<1x4xf32>, tensor<16x8xf8E4M3FN>) -> tensor<1x16xf32>
  return
}


