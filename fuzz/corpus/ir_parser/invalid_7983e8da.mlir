func.func @quantize_min_absmax_inf(%x: tensor<4x8xf32>) {
  %q, %s = indexpool.quantize %x {min_absmax = 0x7F800000 : f32} : (tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<4xf32>)
  return
}

