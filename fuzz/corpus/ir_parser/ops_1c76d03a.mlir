func.func @score(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<256x128xbf16>,
                 %qkeys: tensor<256x128xf8E4M3FN>, %s: tensor<256xf32>)
    -> (tensor<1x256xf32>, tensor<1x256xf32>) {
  %logits = indexpool.score %q, %w, %keys
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xbf16>) -> tensor<1x256xf32>
  %logits2 = indexpool.score %q, %w, %qkeys scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xf8E4M3FN>, tensor<256xf32>) -> tensor<1x256xf32>
  return %logits, %logits2 : tensor<1x256xf32>, tensor<1x256xf32>
}

