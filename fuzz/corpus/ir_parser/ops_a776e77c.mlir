func.func @quantize(%x: tensor<256x128xbf16>, %y: tensor<?x128xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<?x128xi8>, tensor<?xf32>) {
  %q, %scale = indexpool.quantize %x {pow2_scale}
      : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  %q8, %s8 = indexpool.quantize %y {min_absmax = 1.0e-3 : f32}
      : (tensor<?x128xf32>) -> (tensor<?x128xi8>, tensor<?xf32>)
  return %q, %scale, %q8, %s8 : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<?x128xi8>, tensor<?xf32>
}

