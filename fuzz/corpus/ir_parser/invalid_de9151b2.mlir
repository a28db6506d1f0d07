func.func @quantize_input_type(%x: tensor<4x8xi32>) {
  %q, %s = indexpool.quantize %x : (tensor<4x8xi32>) -> (tensor<4x8xi8>, tensor<4xf32>)
  return
}


