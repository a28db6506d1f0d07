func.func @topk_logits_type(%l: tensor<4x16xbf16>) {
  %v, %i = indexpool.topk %l {k = 8 : i64} : (tensor<4x16xbf16>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  return
}


