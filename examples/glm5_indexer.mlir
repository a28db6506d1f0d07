// The indexer key cache of a GLM-5.3-Flash-style layer ("kpool"), written with
// the indexpool dialect:
//   - compress_cache: every 4 consecutive bf16 keys (D = 128) are merged by a
//     softmax over per-channel gate scores plus a per-slot position bias,
//     Hadamard-rotated and quantized to FP8 e4m3 with a power-of-two scale
//     (256 B per token of bf16 keys become (128 + 4) / 4 = 33 B per token);
//   - select_tokens: one decode query (32 index heads) scores the pooled cache
//     and keeps the 512 best pools, expanded to the k = 2048 tokens they cover.
// T = 65536 cached tokens here; any T works (the tail T mod 4 is not pooled).

func.func @compress_cache(%keys: tensor<65536x128xbf16>, %gate: tensor<65536x128xf32>,
                          %ape: tensor<4x128xf32>)
    -> (tensor<16384x128xf8E4M3FN>, tensor<16384xf32>) {
  %pooled, %w = indexpool.pool %keys, %gate bias(%ape) {pool_size = 4 : i64}
      : (tensor<65536x128xbf16>, tensor<65536x128xf32>, tensor<4x128xf32>)
        -> (tensor<16384x128xbf16>, tensor<16384x4x128xf32>)
  %rotated = indexpool.hadamard %pooled : (tensor<16384x128xbf16>) -> tensor<16384x128xbf16>
  %codes, %scales = indexpool.quantize %rotated {pow2_scale}
      : (tensor<16384x128xbf16>) -> (tensor<16384x128xf8E4M3FN>, tensor<16384xf32>)
  return %codes, %scales : tensor<16384x128xf8E4M3FN>, tensor<16384xf32>
}

func.func @select_tokens(%q: tensor<1x32x128xbf16>, %head_w: tensor<1x32xf32>,
                         %codes: tensor<16384x128xf8E4M3FN>, %scales: tensor<16384xf32>,
                         %len: tensor<1xi32>) -> tensor<1x2048xi32> {
  // The query is rotated like the keys: q·k = (qH)·(kH) for orthonormal H.
  %qr = indexpool.hadamard %q : (tensor<1x32x128xbf16>) -> tensor<1x32x128xbf16>
  %logits = indexpool.score %qr, %head_w, %codes scales(%scales)
      : (tensor<1x32x128xbf16>, tensor<1x32xf32>, tensor<16384x128xf8E4M3FN>, tensor<16384xf32>)
        -> tensor<1x16384xf32>
  %vals, %idx = indexpool.topk %logits valid(%len) {k = 512 : i64}
      : (tensor<1x16384xf32>, tensor<1xi32>) -> (tensor<1x512xf32>, tensor<1x512xi32>)
  %tokens = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<1x512xi32>) -> tensor<1x2048xi32>
  return %tokens : tensor<1x2048xi32>
}
