// The functions every test/Target/configure-sm_*.mlir configures for its
// chip: GLM-5.3-Flash's indexer at 65536 cached tokens (16384 pools).

// kpool: per-channel gate scores, a per-slot bias, Hadamard-128, FP8 with
// power-of-two scales. Work items: 16384 pools of 4 x (256 + 512) bytes.
func.func @glm_compress(%keys: tensor<65536x128xbf16>, %scores: tensor<65536x128xf32>,
                        %ape: tensor<4x128xf32>)
    -> (tensor<16384x128xf8E4M3FN>, tensor<16384xf32>, tensor<16384x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%ape) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<65536x128xbf16>, tensor<65536x128xf32>, tensor<4x128xf32>)
        -> (tensor<16384x128xf8E4M3FN>, tensor<16384xf32>, tensor<16384x4x128xf32>)
  return %q, %s, %w : tensor<16384x128xf8E4M3FN>, tensor<16384xf32>, tensor<16384x4x128xf32>
}

// The same at 262144 tokens (65536 pools): more than 8 waves of blocks on
// chips with few SMs, fewer on the others.
func.func @glm_compress_256k(%keys: tensor<262144x128xbf16>, %scores: tensor<262144x128xf32>,
                             %ape: tensor<4x128xf32>)
    -> (tensor<65536x128xf8E4M3FN>, tensor<65536xf32>, tensor<65536x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%ape) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<262144x128xbf16>, tensor<262144x128xf32>, tensor<4x128xf32>)
        -> (tensor<65536x128xf8E4M3FN>, tensor<65536xf32>, tensor<65536x4x128xf32>)
  return %q, %s, %w : tensor<65536x128xf8E4M3FN>, tensor<65536xf32>, tensor<65536x4x128xf32>
}

// And at 524288 tokens (131072 pools): A100's 108 SMs need more than 8
// waves, H100's 132 and B200's 148 do not.
func.func @glm_compress_512k(%keys: tensor<524288x128xbf16>, %scores: tensor<524288x128xf32>,
                             %ape: tensor<4x128xf32>)
    -> (tensor<131072x128xf8E4M3FN>, tensor<131072xf32>, tensor<131072x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%ape) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<524288x128xbf16>, tensor<524288x128xf32>, tensor<4x128xf32>)
        -> (tensor<131072x128xf8E4M3FN>, tensor<131072xf32>, tensor<131072x4x128xf32>)
  return %q, %s, %w : tensor<131072x128xf8E4M3FN>, tensor<131072xf32>, tensor<131072x4x128xf32>
}

// Decode-time selection over the N = 16384 pooled FP8 keys: 64 index heads,
// k = 512 pools, expanded to 2048 tokens.
func.func @glm_select(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                      %keys: tensor<16384x128xf8E4M3FN>, %s: tensor<16384xf32>)
    -> tensor<1x2048xi32> {
  %tok = indexpool.select %q, %w, %keys scales(%s) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<16384x128xf8E4M3FN>, tensor<16384xf32>)
        -> tensor<1x2048xi32>
  return %tok : tensor<1x2048xi32>
}

// The unfused chain: score streams the keys like select, topk takes one
// block per row, expand is a row op on i32.
func.func @glm_score_topk(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                          %keys: tensor<16384x128xf8E4M3FN>, %s: tensor<16384xf32>)
    -> (tensor<1x512xf32>, tensor<1x2048xi32>) {
  %logits = indexpool.score %q, %w, %keys scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<16384x128xf8E4M3FN>, tensor<16384xf32>)
        -> tensor<1x16384xf32>
  %vals, %idx = indexpool.topk %logits {k = 512 : i64}
      : (tensor<1x16384xf32>) -> (tensor<1x512xf32>, tensor<1x512xi32>)
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<1x512xi32>) -> tensor<1x2048xi32>
  return %vals, %tok : tensor<1x512xf32>, tensor<1x2048xi32>
}
