func.func @quantize_scale_shape(%x: tensor<4x8xf32>) {
  %q, %s = indexpool.quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<8xf32>)
  return
}


