func.func @select_dynamic(%q: tensor<?x?x?xf8E4M3FN>, %w: tensor<?x?xf32>, %keys: tensor<?x?xi8>,
                          %s: tensor<?xf32>, %len: tensor<?xi32>) -> tensor<?x?xi32> {
  %logits = indexpool.score %q, %w, %keys scales(%s)
      : (tensor<?x?x?xf8E4M3FN>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x?xf32>
  %vals, %idx = indexpool.topk %logits valid(%len) {k = 2048 : i64}
      : (tensor<?x?xf32>, tensor<?xi32>) -> (tensor<?x2048xf32>, tensor<?x?xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<?x?xi32>) -> tensor<?x?xi32>
  return %tok : tensor<?x?xi32>
}


