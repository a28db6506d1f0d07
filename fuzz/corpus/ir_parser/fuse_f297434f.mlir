func.func @no_select_hidden_mismatch(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<8x128xbf16>)
    -> tensor<1x64xi32> {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<8x128xbf16>) -> tensor<?x?xf32>
  %vals, %idx = indexpool.topk %logits {k = 16 : i64}
      : (tensor<?x?xf32>) -> (tensor<?x16xf32>, tensor<?x16xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<?x16xi32>) -> tensor<1x64xi32>
  return %tok : tensor<1x64xi32>
}


