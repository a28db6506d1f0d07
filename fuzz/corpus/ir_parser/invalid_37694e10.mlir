func.func @reconstruct_no_operands() {
  %0 = "indexpool.reconstruct"() <{pool_size = 4 : i64}> : () -> tensor<8x16xf32>
  return
}


