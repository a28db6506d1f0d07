func.func @topk_dynamic(%logits: tensor<?x?xf32>, %len: tensor<?xi32>)
    -> (tensor<?x2048xf32>, tensor<?x?xi32>) {
  %vals, %idx = indexpool.topk %logits valid(%len) {k = 2048 : i64}
      : (tensor<?x?xf32>, tensor<?xi32>) -> (tensor<?x2048xf32>, tensor<?x?xi32>)
  return %vals, %idx : tensor<?x2048xf32>, tensor<?x?xi32>
}

