func.func @property_bounds(%keys: tensor<8x16xf32>, %scores: tensor<8xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64, temperature = 0x00800000 : f32}
      : (tensor<8x16xf32>, tensor<8xf32>) -> (tensor<2x16xf32>, tensor<2x4xf32>)
  %q, %s = indexpool.quantize %keys {min_absmax = 0x03FE0000 : f32}
      : (tensor<8x16xf32>) -> (tensor<8x16xi8>, tensor<8xf32>)
  %c, %cs, %cw = indexpool.compress %keys, %scores {pool_size = 4 : i64, temperature = 0x00800000 : f32, min_absmax = 0x04E00000 : f32}
      : (tensor<8x16xf32>, tensor<8xf32>) -> (tensor<2x16xf8E4M3FN>, tensor<2xf32>, tensor<2x4xf32>)
  return
}

