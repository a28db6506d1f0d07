// The functions test/Target/static-report.mlir reports on: the GLM-5.3 kpool
// compress at T = 65536 tokens (codes and scales returned, weights not) and a
// decode-time select over its 16384 pooled keys.
func.func @compress(%keys: tensor<65536x128xbf16>, %scores: tensor<65536x128xf32>, %b: tensor<4x128xf32>)
    -> (tensor<16384x128xf8E4M3FN>, tensor<16384xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<65536x128xbf16>, tensor<65536x128xf32>, tensor<4x128xf32>)
        -> (tensor<16384x128xf8E4M3FN>, tensor<16384xf32>, tensor<16384x4x128xf32>)
  return %q, %s : tensor<16384x128xf8E4M3FN>, tensor<16384xf32>
}

func.func @select(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %k: tensor<16384x128xf8E4M3FN>,
                  %s: tensor<16384xf32>) -> tensor<1x512xi32> {
  %t = indexpool.select %q, %w, %k scales(%s) {k = 128 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<16384x128xf8E4M3FN>, tensor<16384xf32>)
        -> tensor<1x512xi32>
  return %t : tensor<1x512xi32>
}
