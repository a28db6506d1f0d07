func.func @dequantize_codes_type(%q: tensor<4x8xf16>, %s: tensor<4xf32>) {
  %x = indexpool.dequantize %q, %s : (tensor<4x8xf16>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}


