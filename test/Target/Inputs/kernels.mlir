// The functions whose kernels every chip must compile: the GLM-5.3 kpool
// compress and the decode-time select, plus score and topk on their own.
func.func @compress(%keys: tensor<4096x128xbf16>, %scores: tensor<4096x128xf32>, %b: tensor<4x128xf32>)
    -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<4096x128xbf16>, tensor<4096x128xf32>, tensor<4x128xf32>)
        -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>)
  return %q, %s, %w : tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>
}

func.func @score(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %k: tensor<4096x128xf8E4M3FN>,
                 %s: tensor<4096xf32>) -> tensor<1x4096xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>) -> tensor<1x4096xf32>
  return %l : tensor<1x4096xf32>
}

func.func @select(%q: tensor<2x64x128xbf16>, %w: tensor<2x64xf32>, %k: tensor<4096x128xf8E4M3FN>,
                  %s: tensor<4096xf32>, %len: tensor<2xi32>) -> tensor<2x512xi32> {
  %t = indexpool.select %q, %w, %k scales(%s) valid(%len) {k = 128 : i64, pool_size = 4 : i64}
      : (tensor<2x64x128xbf16>, tensor<2x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>, tensor<2xi32>)
        -> tensor<2x512xi32>
  return %t : tensor<2x512xi32>
}

// The unfused chain: pool, hadamard and quantize as three warp-row kernels.
func.func @chain(%keys: tensor<4096x128xbf16>, %scores: tensor<4096x128xf32>)
    -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<4096x128xbf16>, tensor<4096x128xf32>) -> (tensor<1024x128xbf16>, tensor<1024x4x128xf32>)
  %r = indexpool.hadamard %p : (tensor<1024x128xbf16>) -> tensor<1024x128xbf16>
  %q, %s = indexpool.quantize %r {pow2_scale} : (tensor<1024x128xbf16>) -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>)
  return %q, %s, %w : tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>
}
