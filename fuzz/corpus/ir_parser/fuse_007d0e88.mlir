func.func @no_select_hidden_valid_mismatch(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                                           %keys: tensor<1024x128xbf16>, %len: tensor<2xi32>)
    -> tensor<?x64xi32> {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1024x128xbf16>) -> tensor<?x1024xf32>
  %vals, %idx = indexpool.topk %logits valid(%len) {k = 16 : i64}
      : (tensor<?x1024xf32>, tensor<2xi32>) -> (tensor<?x16xf32>, tensor<?x16xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<?x16xi32>) -> tensor<?x64xi32>
  return %tok : tensor<?x64xi32>
}


