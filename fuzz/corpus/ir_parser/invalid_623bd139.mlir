func.func @hadamard_rank0(%x: tensor<f32>) {
  %y = indexpool.hadamard %x : (tensor<f32>) -> tensor<f32>
  return
}


