func.func @no_compress_across_regions(%c: i1, %keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>,
                                      %q0: tensor<256x128xi8>) -> tensor<256x128xi8> {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  %r = scf.if %c -> tensor<256x128xi8> {
    %q, %s = indexpool.quantize %pooled : (tensor<256x128xbf16>) -> (tensor<256x128xi8>, tensor<256xf32>)
    scf.yield %q : tensor<256x128xi8>
  } else {
    scf.yield %q0 : tensor<256x128xi8>
  }
  return %r : tensor<256x128xi8>
}



