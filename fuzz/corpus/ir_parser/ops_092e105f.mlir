func.func @score_dynamic(%q: tensor<?x?x?xf8E4M3FN>, %w: tensor<?x?xf32>, %keys: tensor<?x?xi8>,
                         %s: tensor<?xf32>) -> tensor<?x?xf32> {
  %logits = indexpool.score %q, %w, %keys scales(%s)
      : (tensor<?x?x?xf8E4M3FN>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x?xf32>
  return %logits : tensor<?x?xf32>
}

