func.func @quantize_result_type(%x: tensor<4x8xf32>) {
  %q, %s = indexpool.quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xf16>, tensor<4xf32>)
  return
}


