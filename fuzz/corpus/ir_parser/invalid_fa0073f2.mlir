func.func @hadamard_result_type(%x: tensor<4x8xbf16>) {
  %y = indexpool.hadamard %x : (tensor<4x8xbf16>) -> tensor<4x8xf16>
  return
}


