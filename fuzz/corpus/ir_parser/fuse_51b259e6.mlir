func.func @compress_i8_min_absmax(%keys: tensor<1027x64xf16>, %scores: tensor<1027xf16>, %b: tensor<8xf16>)
    -> (tensor<128x64xi8>, tensor<128xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores bias(%b) {pool_size = 8 : i64}
      : (tensor<1027x64xf16>, tensor<1027xf16>, tensor<8xf16>) -> (tensor<128x64xf16>, tensor<128x8xf32>)
  %rot = indexpool.hadamard %pooled : (tensor<128x64xf16>) -> tensor<128x64xf16>
  %q, %s = indexpool.quantize %rot {min_absmax = 1.0e-3 : f32}
      : (tensor<128x64xf16>) -> (tensor<128x64xi8>, tensor<128xf32>)
  return %q, %s : tensor<128x64xi8>, tensor<128xf32>
}


