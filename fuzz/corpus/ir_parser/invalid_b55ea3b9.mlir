func.func @quantize_input_rank(%x: tensor<2x4x8xf32>) {
  %q, %s = indexpool.quantize %x : (tensor<2x4x8xf32>) -> (tensor<2x4x8xi8>, tensor<2x4xf32>)
  return
}


