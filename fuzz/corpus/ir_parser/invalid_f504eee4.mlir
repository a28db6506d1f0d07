func.func @pool_temperature_subnormal(%k: tensor<8x8xf32>, %s: tensor<8xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64, temperature = 1.0e-40 : f32} : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}


