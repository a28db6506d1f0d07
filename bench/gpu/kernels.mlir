// The GPU benchmark functions: GLM-5.3-Flash kpool compress and decode-time
// select, at T = 2^20 and 2^21 tokens, D = 128 (bf16 keys, per-channel f32
// gate scores, per-slot bias, Hadamard, FP8 e4m3 with pow2 scales).

func.func @compress_1m(%keys: tensor<1048576x128xbf16>, %scores: tensor<1048576x128xf32>, %bias: tensor<4x128xf32>)
    -> (tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%bias) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1048576x128xbf16>, tensor<1048576x128xf32>, tensor<4x128xf32>)
        -> (tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>)
  return %q, %s, %w : tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>
}

func.func @compress_2m(%keys: tensor<2097152x128xbf16>, %scores: tensor<2097152x128xf32>, %bias: tensor<4x128xf32>)
    -> (tensor<524288x128xf8E4M3FN>, tensor<524288xf32>, tensor<524288x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%bias) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<2097152x128xbf16>, tensor<2097152x128xf32>, tensor<4x128xf32>)
        -> (tensor<524288x128xf8E4M3FN>, tensor<524288xf32>, tensor<524288x4x128xf32>)
  return %q, %s, %w : tensor<524288x128xf8E4M3FN>, tensor<524288xf32>, tensor<524288x4x128xf32>
}

func.func @select_1m(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<262144x128xf8E4M3FN>,
                     %scales: tensor<262144xf32>) -> tensor<1x2048xi32> {
  %t = indexpool.select %q, %w, %keys scales(%scales) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<262144x128xf8E4M3FN>, tensor<262144xf32>)
        -> tensor<1x2048xi32>
  return %t : tensor<1x2048xi32>
}

func.func @select_2m(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<524288x128xf8E4M3FN>,
                     %scales: tensor<524288xf32>) -> tensor<1x2048xi32> {
  %t = indexpool.select %q, %w, %keys scales(%scales) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<524288x128xf8E4M3FN>, tensor<524288xf32>)
        -> tensor<1x2048xi32>
  return %t : tensor<1x2048xi32>
}

// Compress as a serving engine runs it: bf16 per-channel scores (half the
// score bytes), no weights returned (only codes and scales written).
func.func @compress_lean_1m(%keys: tensor<1048576x128xbf16>, %scores: tensor<1048576x128xbf16>, %bias: tensor<4x128xf32>)
    -> (tensor<262144x128xf8E4M3FN>, tensor<262144xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%bias) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1048576x128xbf16>, tensor<1048576x128xbf16>, tensor<4x128xf32>)
        -> (tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>)
  return %q, %s : tensor<262144x128xf8E4M3FN>, tensor<262144xf32>
}

// Select for a prefill chunk: 64 query rows against the same 2^18 pools.
func.func @select_1m_m64(%q: tensor<64x64x128xbf16>, %w: tensor<64x64xf32>, %keys: tensor<262144x128xf8E4M3FN>,
                         %scales: tensor<262144xf32>) -> tensor<64x2048xi32> {
  %t = indexpool.select %q, %w, %keys scales(%scales) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<64x64x128xbf16>, tensor<64x64xf32>, tensor<262144x128xf8E4M3FN>, tensor<262144xf32>)
        -> tensor<64x2048xi32>
  return %t : tensor<64x2048xi32>
}

// Select with an FP8 e4m3 query, as DeepSeek-V3.2's indexer quantizes it:
// e4m3 MMAs straight on the codes (sm_89+), no decoding of the keys.
func.func @select_1m_fp8q(%q: tensor<1x64x128xf8E4M3FN>, %w: tensor<1x64xf32>, %keys: tensor<262144x128xf8E4M3FN>,
                          %scales: tensor<262144xf32>) -> tensor<1x2048xi32> {
  %t = indexpool.select %q, %w, %keys scales(%scales) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xf8E4M3FN>, tensor<1x64xf32>, tensor<262144x128xf8E4M3FN>, tensor<262144xf32>)
        -> tensor<1x2048xi32>
  return %t : tensor<1x2048xi32>
}
