func.func @pool_tail_f16_scores(%keys: tensor<1027x64xf16>, %scores: tensor<1027xf16>,
                                %bias: tensor<8xf16>) -> (tensor<128x64xf32>, tensor<128x8xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores bias(%bias) {pool_size = 8 : i64}
      : (tensor<1027x64xf16>, tensor<1027xf16>, tensor<8xf16>) -> (tensor<128x64xf32>, tensor<128x8xf32>)
  return %pooled, %w : tensor<128x64xf32>, tensor<128x8xf32>
}

