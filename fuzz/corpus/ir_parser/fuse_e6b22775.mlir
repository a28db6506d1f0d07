func.func @select_plain(%q: tensor<4x32x128xf32>, %w: tensor<4x32xf32>, %keys: tensor<1024x128xbf16>)
    -> tensor<4x512xi32> {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<4x32x128xf32>, tensor<4x32xf32>, tensor<1024x128xbf16>) -> tensor<4x1024xf32>
  %vals, %idx = indexpool.topk %logits {k = 64 : i64}
      : (tensor<4x1024xf32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
  %tok = indexpool.expand %idx {pool_size = 8 : i64} : (tensor<4x64xi32>) -> tensor<4x512xi32>
  return %tok : tensor<4x512xi32>
}


