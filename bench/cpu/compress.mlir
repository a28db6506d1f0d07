// The benchmarked compress: GLM-5.3-Flash kpool at T = 2^20, D = 128 (bf16
// keys, per-channel gate scores, per-slot bias, Hadamard, FP8 pow2 scales).
func.func @compress(%keys: tensor<1048576x128xbf16>, %scores: tensor<1048576x128xf32>, %bias: tensor<4x128xf32>)
    -> (tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%bias) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1048576x128xbf16>, tensor<1048576x128xf32>, tensor<4x128xf32>)
        -> (tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>)
  return %q, %s, %w : tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>
}

// The benchmarked select: one decode query (64 heads) against the 2^18 pooled
// FP8 keys of T = 2^20 tokens, k = 512 pools -> 2048 tokens.
func.func @select(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<262144x128xf8E4M3FN>,
                  %scales: tensor<262144xf32>) -> tensor<1x2048xi32> {
  %t = indexpool.select %q, %w, %keys scales(%scales) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<262144x128xf8E4M3FN>, tensor<262144xf32>)
        -> tensor<1x2048xi32>
  return %t : tensor<1x2048xi32>
}
