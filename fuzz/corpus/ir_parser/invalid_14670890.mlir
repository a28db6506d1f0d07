func.func @hadamard_element_count(%x: tensor<4611686018427387904x4xf32>) {
  %0 = indexpool.hadamard %x : (tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32>
  return
}


