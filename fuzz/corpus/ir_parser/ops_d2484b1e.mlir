func.func @dequantize(%q: tensor<256x128xf8E4M3FN>, %scale: tensor<256xf32>,
                      %q8: tensor<?x?xi8>, %s8: tensor<?xf32>)
    -> (tensor<256x128xf32>, tensor<?x?xbf16>) {
  %x = indexpool.dequantize %q, %scale : (tensor<256x128xf8E4M3FN>, tensor<256xf32>) -> tensor<256x128xf32>
  %y = indexpool.dequantize %q8, %s8 : (tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x?xbf16>
  return %x, %y : tensor<256x128xf32>, tensor<?x?xbf16>
}

