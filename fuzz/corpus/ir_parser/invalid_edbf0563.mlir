func.func @quantize_scale_rank(%x: tensor<4x8xf32>) {
  %q, %s = indexpool.quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<4x1xf32>)
  return
}


