func.func @hadamard_not_pow2(%x: tensor<4x96xf32>) {
  %y = indexpool.hadamard %x : (tensor<4x96xf32>) -> tensor<4x96xf32>
  return
}


