func.func @topk(%logits: tensor<4x1024xf32>, %len: tensor<4xi32>)
    -> (tensor<4x64xf32>, tensor<4x64xi32>, tensor<4x64xf32>, tensor<4x64xi32>) {
  %vals, %idx = indexpool.topk %logits {k = 64 : i64}
      : (tensor<4x1024xf32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
  %vals2, %idx2 = indexpool.topk %logits valid(%len) {k = 64 : i64}
      : (tensor<4x1024xf32>, tensor<4xi32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
  return %vals, %idx, %vals2, %idx2 : tensor<4x64xf32>, tensor<4x64xi32>, tensor<4x64xf32>, tensor<4x64xi32>
}

