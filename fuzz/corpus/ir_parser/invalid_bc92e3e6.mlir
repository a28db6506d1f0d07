func.func @quantize_min_absmax_f8(%x: tensor<4x8xf32>) {
  %q, %s = indexpool.quantize %x {min_absmax = 1.0e-40 : f32} : (tensor<4x8xf32>) -> (tensor<4x8xf8E4M3FN>, tensor<4xf32>)
  return
}


