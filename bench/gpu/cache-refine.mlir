// The refine cache's kernels for indexpool-cache-gpu-check with the token
// tier (bench/gpu/cache_check.cpp, 4 manifests): cache.mlir's
// configuration (f32 keys, D = 128, H = 64, E = 64, P = 4, a slot bias,
// temperature 0.8) with refine C = 4 and k = 16 pools: select_paged keeps
// C k = 64 pools (259 candidate tokens, the tail's 3 included) and
// refine_paged the best k P + P - 1 = 67 of them from the token tier,
// whose pages hold P E = 256 tokens (33,792 bytes). Dynamic in the batch,
// the new tokens, the pages and the block tables' width, as
// buildCacheModules builds them (the token tier's append: no bias, no
// temperature, tails of P - 1 = 0 rows). k is smaller than cache.mlir's
// 512 so that the check's sequences (under 1,500 tokens) overflow both
// stages: past 259 tokens select_paged drops pools, past 67 refine_paged
// drops candidates. make-artifacts.sh compiles them into cache-refine/CHIP;
// the check reads k and C back from the manifests.

func.func @append_paged(%keys: tensor<?x?x128xf32>, %scores: tensor<?x?xf32>,
                        %bias: tensor<4xf32>, %tail_keys: tensor<?x3x128xf32>,
                        %tail_scores: tensor<?x3xf32>, %lengths: tensor<?xi32>,
                        %pages: tensor<?x8448xi8>, %table: tensor<?x?xi32>)
    -> (tensor<?x8448xi8>, tensor<?x3x128xf32>, tensor<?x3xf32>) {
  %p, %tk, %ts = indexpool.append_paged %keys, %scores bias(%bias)
      tail(%tail_keys, %tail_scores) lengths(%lengths) into %pages
      block_table(%table) {pool_size = 4 : i64, rotate, temperature = 8.000000e-01 : f32}
      : (tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<4xf32>, tensor<?x3x128xf32>,
         tensor<?x3xf32>, tensor<?xi32>, tensor<?x8448xi8>, tensor<?x?xi32>)
        -> (tensor<?x8448xi8>, tensor<?x3x128xf32>, tensor<?x3xf32>)
  return %p, %tk, %ts : tensor<?x8448xi8>, tensor<?x3x128xf32>, tensor<?x3xf32>
}

// The first stage: C k = 64 pools, 64 * 4 + 3 candidate tokens per row.
func.func @select_paged(%query: tensor<?x1x64x128xf32>, %weights: tensor<?x1x64xf32>,
                        %pages: tensor<?x8448xi8>, %table: tensor<?x?xi32>,
                        %lengths: tensor<?x1xi32>) -> tensor<?x1x259xi32> {
  %rotated = indexpool.hadamard %query : (tensor<?x1x64x128xf32>) -> tensor<?x1x64x128xf32>
  %tokens = indexpool.select_paged %rotated, %weights pages(%pages)
      block_table(%table) lengths(%lengths) {k = 64 : i64, pool_size = 4 : i64}
      : (tensor<?x1x64x128xf32>, tensor<?x1x64xf32>, tensor<?x8448xi8>,
         tensor<?x?xi32>, tensor<?x1xi32>) -> tensor<?x1x259xi32>
  return %tokens : tensor<?x1x259xi32>
}

// The token tier's append: each token a group of one, at its entry of the
// page of its pool (page_entries = P E).
func.func @append_tokens(%keys: tensor<?x?x128xf32>, %scores: tensor<?x?xf32>,
                         %tail_keys: tensor<?x0x128xf32>, %tail_scores: tensor<?x0xf32>,
                         %lengths: tensor<?xi32>, %pages: tensor<?x33792xi8>,
                         %table: tensor<?x?xi32>)
    -> (tensor<?x33792xi8>, tensor<?x0x128xf32>, tensor<?x0xf32>) {
  %p, %tk, %ts = indexpool.append_paged %keys, %scores
      tail(%tail_keys, %tail_scores) lengths(%lengths) into %pages
      block_table(%table) {pool_size = 1 : i64, rotate, page_entries = 256 : i64}
      : (tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?x0x128xf32>,
         tensor<?x0xf32>, tensor<?xi32>, tensor<?x33792xi8>, tensor<?x?xi32>)
        -> (tensor<?x33792xi8>, tensor<?x0x128xf32>, tensor<?x0xf32>)
  return %p, %tk, %ts : tensor<?x33792xi8>, tensor<?x0x128xf32>, tensor<?x0xf32>
}

// The second stage: the best k P + P - 1 = 67 of select_paged's 259
// candidates, each scored from its own entry of the token tier.
func.func @refine_paged(%query: tensor<?x1x64x128xf32>, %weights: tensor<?x1x64xf32>,
                        %candidates: tensor<?x1x259xi32>, %pages: tensor<?x33792xi8>,
                        %table: tensor<?x?xi32>, %lengths: tensor<?x1xi32>)
    -> tensor<?x1x67xi32> {
  %rotated = indexpool.hadamard %query : (tensor<?x1x64x128xf32>) -> tensor<?x1x64x128xf32>
  %tokens = indexpool.refine_paged %rotated, %weights, %candidates pages(%pages)
      block_table(%table) lengths(%lengths) {k = 67 : i64, page_entries = 256 : i64}
      : (tensor<?x1x64x128xf32>, tensor<?x1x64xf32>, tensor<?x1x259xi32>,
         tensor<?x33792xi8>, tensor<?x?xi32>, tensor<?x1xi32>) -> tensor<?x1x67xi32>
  return %tokens : tensor<?x1x67xi32>
}
