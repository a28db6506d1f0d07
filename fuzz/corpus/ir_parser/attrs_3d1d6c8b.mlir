func.func @launch_on_op(%x: tensor<256x128xbf16>) -> tensor<256x128xbf16> {
  %y = indexpool.hadamard %x {indexpool.launch = #indexpool.launch<chip = "sm_90",
      threads_per_block = 512, items_per_block = 32, elements_per_thread = 8,
      vector_bytes = 16, grid = tiled>}
      : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  return %y : tensor<256x128xbf16>
}


