func.func @hadamard_result_rank(%x: tensor<4x8xf32>) {
  %y = indexpool.hadamard %x : (tensor<4x8xf32>) -> tensor<32xf32>
  return
}


