func.func @compress(%keys: tensor<1024x128xbf16>, %scores: tensor<1024x128xf32>, %b: tensor<4x128xf32>,
                    %dk: tensor<?x?xf16>, %ds: tensor<?xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>,
        tensor<?x?xi8>, tensor<?xf32>, tensor<?x2xf32>) {
  %q, %scale, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>)
        -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>)
  %q2, %s2, %w2 = indexpool.compress %dk, %ds {pool_size = 2 : i64, temperature = 0.5 : f32, min_absmax = 0.5 : f32}
      : (tensor<?x?xf16>, tensor<?xf32>) -> (tensor<?x?xi8>, tensor<?xf32>, tensor<?x2xf32>)
  return %q, %scale, %w, %q2, %s2, %w2 : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>,
      tensor<?x?xi8>, tensor<?xf32>, tensor<?x2xf32>
}

