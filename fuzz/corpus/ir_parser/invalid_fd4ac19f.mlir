func.func @quantize_codes_shape(%x: tensor<4x8xf32>) {
  %q, %s = indexpool.quantize %x : (tensor<4x8xf32>) -> (tensor<4x16xi8>, tensor<4xf32>)
  return
}


