func.func @hadamard_input_type(%x: tensor<4x8xi8>) {
  %y = indexpool.hadamard %x : (tensor<4x8xi8>) -> tensor<4x8xf32>
  return
}


