func.func @hadamard_too_wide(%x: tensor<4x2048xf32>) {
  %y = indexpool.hadamard %x : (tensor<4x2048xf32>) -> tensor<4x2048xf32>
  return
}


