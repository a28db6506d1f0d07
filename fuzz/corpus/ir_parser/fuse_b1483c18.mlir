func.func @no_select_hidden_tokens_mismatch(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                                            %keys: tensor<1024x128xbf16>) -> tensor<1x100xi32> {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1024x128xbf16>) -> tensor<1x1024xf32>
  %vals, %idx = indexpool.topk %logits {k = 16 : i64}
      : (tensor<1x1024xf32>) -> (tensor<1x16xf32>, tensor<1x?xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<1x?xi32>) -> tensor<1x100xi32>
  return %tok : tensor<1x100xi32>
}


