// bench/cpu/peaks.py: each op at one decode step of a 2^20-token context
// (D = 128, H = 64 heads, one query row, pool P = 4: 2^18 pooled entries,
// k = 512 pools), one function per op and code type, timed against the
// host's peaks (indexpool-bench-cpu-peaks).
//
// select: dense FP8 / i8 keys with f32 scales (i4 codes exist only in the
// paged layout: the dense ops' keys are f32, f16, bf16, i8 or f8E4M3FN).
// select_paged: the same 2^18 entries in 4096 pages of E = 64.
// refine_paged: the second stage of the two-stage recipe on the token tier
// (one entry per token, E = 256: 4096 pages for the 2^20 tokens): 8195
// candidates (2048 pools' tokens and the 3 tail slots), the 2048 best kept,
// as in the op's own example.

func.func @select_f8(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
    %keys: tensor<262144x128xf8E4M3FN>, %scales: tensor<262144xf32>)
    -> tensor<1x2048xi32> {
  %t = indexpool.select %q, %w, %keys scales(%scales)
      {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<262144x128xf8E4M3FN>,
         tensor<262144xf32>) -> tensor<1x2048xi32>
  return %t : tensor<1x2048xi32>
}

func.func @select_i8(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
    %keys: tensor<262144x128xi8>, %scales: tensor<262144xf32>)
    -> tensor<1x2048xi32> {
  %t = indexpool.select %q, %w, %keys scales(%scales)
      {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<262144x128xi8>,
         tensor<262144xf32>) -> tensor<1x2048xi32>
  return %t : tensor<1x2048xi32>
}

func.func @select_paged_f8(%q: tensor<1x1x64x128xbf16>,
    %w: tensor<1x1x64xf32>, %pages: tensor<4096x8448xi8>,
    %table: tensor<1x4096xi32>, %len: tensor<1x1xi32>) -> tensor<1x1x2051xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<4096x8448xi8>,
         tensor<1x4096xi32>, tensor<1x1xi32>) -> tensor<1x1x2051xi32>
  return %t : tensor<1x1x2051xi32>
}

func.func @select_paged_i8(%q: tensor<1x1x64x128xbf16>,
    %w: tensor<1x1x64xf32>, %pages: tensor<4096x8448xi8>,
    %table: tensor<1x4096xi32>, %len: tensor<1x1xi32>) -> tensor<1x1x2051xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 512 : i64, pool_size = 4 : i64, codes = i8}
      : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<4096x8448xi8>,
         tensor<1x4096xi32>, tensor<1x1xi32>) -> tensor<1x1x2051xi32>
  return %t : tensor<1x1x2051xi32>
}

func.func @select_paged_i4(%q: tensor<1x1x64x128xbf16>,
    %w: tensor<1x1x64xf32>, %pages: tensor<4096x4352xi8>,
    %table: tensor<1x4096xi32>, %len: tensor<1x1xi32>) -> tensor<1x1x2051xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 512 : i64, pool_size = 4 : i64, codes = i4}
      : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<4096x4352xi8>,
         tensor<1x4096xi32>, tensor<1x1xi32>) -> tensor<1x1x2051xi32>
  return %t : tensor<1x1x2051xi32>
}

func.func @refine_paged_f8(%q: tensor<1x1x64x128xbf16>,
    %w: tensor<1x1x64xf32>, %cand: tensor<1x1x8195xi32>,
    %tier: tensor<4096x33792xi8>, %table: tensor<1x4096xi32>,
    %len: tensor<1x1xi32>) -> tensor<1x1x2048xi32> {
  %t = indexpool.refine_paged %q, %w, %cand pages(%tier) block_table(%table)
      lengths(%len) {k = 2048 : i64, page_entries = 256 : i64}
      : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<1x1x8195xi32>,
         tensor<4096x33792xi8>, tensor<1x4096xi32>, tensor<1x1xi32>)
        -> tensor<1x1x2048xi32>
  return %t : tensor<1x1x2048xi32>
}

func.func @refine_paged_i8(%q: tensor<1x1x64x128xbf16>,
    %w: tensor<1x1x64xf32>, %cand: tensor<1x1x8195xi32>,
    %tier: tensor<4096x33792xi8>, %table: tensor<1x4096xi32>,
    %len: tensor<1x1xi32>) -> tensor<1x1x2048xi32> {
  %t = indexpool.refine_paged %q, %w, %cand pages(%tier) block_table(%table)
      lengths(%len) {k = 2048 : i64, page_entries = 256 : i64, codes = i8}
      : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<1x1x8195xi32>,
         tensor<4096x33792xi8>, tensor<1x4096xi32>, tensor<1x1xi32>)
        -> tensor<1x1x2048xi32>
  return %t : tensor<1x1x2048xi32>
}

func.func @refine_paged_i4(%q: tensor<1x1x64x128xbf16>,
    %w: tensor<1x1x64xf32>, %cand: tensor<1x1x8195xi32>,
    %tier: tensor<4096x17408xi8>, %table: tensor<1x4096xi32>,
    %len: tensor<1x1xi32>) -> tensor<1x1x2048xi32> {
  %t = indexpool.refine_paged %q, %w, %cand pages(%tier) block_table(%table)
      lengths(%len) {k = 2048 : i64, page_entries = 256 : i64, codes = i4}
      : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<1x1x8195xi32>,
         tensor<4096x17408xi8>, tensor<1x4096xi32>, tensor<1x1xi32>)
        -> tensor<1x1x2048xi32>
  return %t : tensor<1x1x2048xi32>
}
