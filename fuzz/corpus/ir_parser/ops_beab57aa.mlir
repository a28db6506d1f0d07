func.func @hadamard(%x: tensor<256x128xbf16>, %d: tensor<?x?xf16>, %q: tensor<1x64x128xbf16>)
    -> (tensor<256x128xbf16>, tensor<?x?xf32>, tensor<1x64x128xbf16>) {
  %y = indexpool.hadamard %x : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  %z = indexpool.hadamard %d : (tensor<?x?xf16>) -> tensor<?x?xf32>
  %r = indexpool.hadamard %q : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16>
  return %y, %z, %r : tensor<256x128xbf16>, tensor<?x?xf32>, tensor<1x64x128xbf16>
}

