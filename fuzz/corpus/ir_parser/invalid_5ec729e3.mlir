func.func @quantize_scale_type(%x: tensor<4x8xf32>) {
  %q, %s = indexpool.quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<4xf16>)
  return
}


