func.func @no_select_logits_used(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<1024x128xbf16>)
    -> (tensor<1x256xi32>, tensor<1x1024xf32>) {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1024x128xbf16>) -> tensor<1x1024xf32>
  %vals, %idx = indexpool.topk %logits {k = 64 : i64}
      : (tensor<1x1024xf32>) -> (tensor<1x64xf32>, tensor<1x64xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<1x64xi32>) -> tensor<1x256xi32>
  return %tok, %logits : tensor<1x256xi32>, tensor<1x1024xf32>
}


