func.func private @lengths() -> tensor<1xi32>
func.func @select_scales_valid(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                               %keys: tensor<4096x128xf8E4M3FN>, %s: tensor<4096xf32>)
    -> tensor<1x2048xi32> {
  %logits = indexpool.score %q, %w, %keys scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>)
        -> tensor<1x4096xf32>
  %len = func.call @lengths() : () -> tensor<1xi32>
  %vals, %idx = indexpool.topk %logits valid(%len) {k = 512 : i64}
      : (tensor<1x4096xf32>, tensor<1xi32>) -> (tensor<1x512xf32>, tensor<1x512xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<1x512xi32>) -> tensor<1x2048xi32>
  return %tok : tensor<1x2048xi32>
}


