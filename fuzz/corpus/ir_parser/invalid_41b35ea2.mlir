func.func @dequantize_result_type(%q: tensor<4x8xi8>, %s: tensor<4xf32>) {
  %x = indexpool.dequantize %q, %s : (tensor<4x8xi8>, tensor<4xf32>) -> tensor<4x8xi32>
  return
}


