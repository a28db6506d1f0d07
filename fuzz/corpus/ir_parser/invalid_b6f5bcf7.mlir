func.func @quantize_min_absmax(%x: tensor<4x8xf32>) {
  %q, %s = indexpool.quantize %x {min_absmax = 0.0 : f32} : (tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<4xf32>)
  return
}



