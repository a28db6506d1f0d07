// The cache runtime's kernels for indexpool-cache-gpu-check (bench/gpu/
// cache_check.cpp): append_paged and select_paged of a serving
// configuration (f32 keys, D = 128, H = 64, k = 512, E = 64, P = 4, a slot
// bias, temperature 0.8), dynamic in the batch, the new tokens, the pages
// and the block tables' width, as makeCpuCacheKernels builds them.
// make-artifacts.sh compiles them into cache/CHIP; the check reads the
// configuration back from the manifests.

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

func.func @select_paged(%query: tensor<?x1x64x128xf32>, %weights: tensor<?x1x64xf32>,
                        %pages: tensor<?x8448xi8>, %table: tensor<?x?xi32>,
                        %lengths: tensor<?x1xi32>) -> tensor<?x1x2051xi32> {
  %rotated = indexpool.hadamard %query : (tensor<?x1x64x128xf32>) -> tensor<?x1x64x128xf32>
  %tokens = indexpool.select_paged %rotated, %weights pages(%pages)
      block_table(%table) lengths(%lengths) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<?x1x64x128xf32>, tensor<?x1x64xf32>, tensor<?x8448xi8>,
         tensor<?x?xi32>, tensor<?x1xi32>) -> tensor<?x1x2051xi32>
  return %tokens : tensor<?x1x2051xi32>
}
