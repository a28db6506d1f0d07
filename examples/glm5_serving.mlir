// The serving layout (docs/serving-layout.md) on one GLM-5.3-Flash-style
// indexer layer: one sequence prefilled into pages, then decode steps of
// append + select, as a serving engine runs them.
//
// @serve: compress_paged writes the prefill's groups (pooled P = 4, rotated,
// FP8 codes, power-of-two scales; E = 64 entries of D = 128 per page: 8448
// bytes) at the slots its block table maps them to; then every step of the
// scf.for appends the step's token (completing a group every 4 steps), adds
// it to the length and selects the top k = 512 pooled entries for the step's
// query row (H = 64 heads), its 2048 tokens plus the tail. Results: the
// final pages and every step's tokens, [steps, 1, 1, k*P + P - 1]. The
// pages, tail and length are the loop's iter_args: the CPU pipeline updates
// them in place (no step copies the pages).
//
// Sizes come from the inputs (make_serving_inputs.py writes consistent
// ones): T prefill tokens, steps from the new keys, pages and the table's
// width from the cache. @prefill is @serve's first op alone, to tell the
// decode steps' time from the prefill's; @build and @steps check a
// full-size run (below).
func.func @serve(%keys: tensor<?x128xbf16>, %scores: tensor<?xf32>,
    %pages: tensor<?x8448xi8>, %slots: tensor<?xi64>,
    %table: tensor<1x?xi32>, %tail_keys: tensor<1x3x128xbf16>,
    %tail_scores: tensor<1x3xf32>, %lengths: tensor<1xi32>,
    %new_keys: tensor<?x1x1x128xbf16>, %new_scores: tensor<?x1x1xf32>,
    %queries: tensor<?x1x1x64x128xbf16>, %head_weights: tensor<?x1x1x64xf32>)
    -> (tensor<?x8448xi8>, tensor<?x1x1x2051xi32>) {
  %prefilled = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<?x128xbf16>, tensor<?xf32>, tensor<?x8448xi8>, tensor<?xi64>)
        -> tensor<?x8448xi8>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = tensor.dim %new_keys, %c0 : tensor<?x1x1x128xbf16>
  %one = arith.constant dense<1> : tensor<1xi32>
  %empty = tensor.empty(%steps) : tensor<?x1x1x2051xi32>
  %final:5 = scf.for %i = %c0 to %steps step %c1
      iter_args(%p = %prefilled, %tk = %tail_keys, %ts = %tail_scores,
                %len = %lengths, %out = %empty)
      -> (tensor<?x8448xi8>, tensor<1x3x128xbf16>, tensor<1x3xf32>,
          tensor<1xi32>, tensor<?x1x1x2051xi32>) {
    %k = tensor.extract_slice %new_keys[%i, 0, 0, 0] [1, 1, 1, 128]
        [1, 1, 1, 1] : tensor<?x1x1x128xbf16> to tensor<1x1x128xbf16>
    %s = tensor.extract_slice %new_scores[%i, 0, 0] [1, 1, 1] [1, 1, 1]
        : tensor<?x1x1xf32> to tensor<1x1xf32>
    %p2, %tk2, %ts2 = indexpool.append_paged %k, %s tail(%tk, %ts)
        lengths(%len) into %p block_table(%table)
        {pool_size = 4 : i64, rotate, pow2_scale}
        : (tensor<1x1x128xbf16>, tensor<1x1xf32>, tensor<1x3x128xbf16>,
           tensor<1x3xf32>, tensor<1xi32>, tensor<?x8448xi8>,
           tensor<1x?xi32>)
          -> (tensor<?x8448xi8>, tensor<1x3x128xbf16>, tensor<1x3xf32>)
    %len2 = arith.addi %len, %one : tensor<1xi32>
    %rows = tensor.expand_shape %len2 [[0, 1]] output_shape [1, 1]
        : tensor<1xi32> into tensor<1x1xi32>
    %q = tensor.extract_slice %queries[%i, 0, 0, 0, 0] [1, 1, 1, 64, 128]
        [1, 1, 1, 1, 1]
        : tensor<?x1x1x64x128xbf16> to tensor<1x1x64x128xbf16>
    %w = tensor.extract_slice %head_weights[%i, 0, 0, 0] [1, 1, 1, 64]
        [1, 1, 1, 1] : tensor<?x1x1x64xf32> to tensor<1x1x64xf32>
    %tokens = indexpool.select_paged %q, %w pages(%p2) block_table(%table)
        lengths(%rows) {k = 512 : i64, pool_size = 4 : i64}
        : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<?x8448xi8>,
           tensor<1x?xi32>, tensor<1x1xi32>) -> tensor<1x1x2051xi32>
    %out2 = tensor.insert_slice %tokens into %out[%i, 0, 0, 0]
        [1, 1, 1, 2051] [1, 1, 1, 1]
        : tensor<1x1x2051xi32> into tensor<?x1x1x2051xi32>
    scf.yield %p2, %tk2, %ts2, %len2, %out2
        : tensor<?x8448xi8>, tensor<1x3x128xbf16>, tensor<1x3xf32>,
          tensor<1xi32>, tensor<?x1x1x2051xi32>
  }
  return %final#0, %final#4 : tensor<?x8448xi8>, tensor<?x1x1x2051xi32>
}

// The checks of a full-size run (scripts/run-example.sh). A step's selection
// depends on the pages the JIT built (codes may differ from the reference's
// by one, which can reorder near scores), so @serve is checked in two parts,
// each against the reference on the same inputs:
// @build is @serve without the selections: its final pages are checked
// against the reference, and @serve's must be byte-identical to them.
// @steps selects for given query rows at given lengths over given pages,
// one row per step (B = rows, every table row the sequence's): on @serve's
// final pages it must give exactly @serve's tokens of those steps (an
// append writes only new entries, so the final pages hold every entry a
// step read), and the reference on the same pages.
func.func @build(%keys: tensor<?x128xbf16>, %scores: tensor<?xf32>,
    %pages: tensor<?x8448xi8>, %slots: tensor<?xi64>,
    %table: tensor<1x?xi32>, %tail_keys: tensor<1x3x128xbf16>,
    %tail_scores: tensor<1x3xf32>, %lengths: tensor<1xi32>,
    %new_keys: tensor<?x1x1x128xbf16>, %new_scores: tensor<?x1x1xf32>)
    -> tensor<?x8448xi8> {
  %prefilled = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<?x128xbf16>, tensor<?xf32>, tensor<?x8448xi8>, tensor<?xi64>)
        -> tensor<?x8448xi8>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = tensor.dim %new_keys, %c0 : tensor<?x1x1x128xbf16>
  %one = arith.constant dense<1> : tensor<1xi32>
  %final:4 = scf.for %i = %c0 to %steps step %c1
      iter_args(%p = %prefilled, %tk = %tail_keys, %ts = %tail_scores,
                %len = %lengths)
      -> (tensor<?x8448xi8>, tensor<1x3x128xbf16>, tensor<1x3xf32>,
          tensor<1xi32>) {
    %k = tensor.extract_slice %new_keys[%i, 0, 0, 0] [1, 1, 1, 128]
        [1, 1, 1, 1] : tensor<?x1x1x128xbf16> to tensor<1x1x128xbf16>
    %s = tensor.extract_slice %new_scores[%i, 0, 0] [1, 1, 1] [1, 1, 1]
        : tensor<?x1x1xf32> to tensor<1x1xf32>
    %p2, %tk2, %ts2 = indexpool.append_paged %k, %s tail(%tk, %ts)
        lengths(%len) into %p block_table(%table)
        {pool_size = 4 : i64, rotate, pow2_scale}
        : (tensor<1x1x128xbf16>, tensor<1x1xf32>, tensor<1x3x128xbf16>,
           tensor<1x3xf32>, tensor<1xi32>, tensor<?x8448xi8>,
           tensor<1x?xi32>)
          -> (tensor<?x8448xi8>, tensor<1x3x128xbf16>, tensor<1x3xf32>)
    %len2 = arith.addi %len, %one : tensor<1xi32>
    scf.yield %p2, %tk2, %ts2, %len2
        : tensor<?x8448xi8>, tensor<1x3x128xbf16>, tensor<1x3xf32>,
          tensor<1xi32>
  }
  return %final#0 : tensor<?x8448xi8>
}

func.func @steps(%queries: tensor<?x1x64x128xbf16>,
    %head_weights: tensor<?x1x64xf32>, %pages: tensor<?x8448xi8>,
    %table: tensor<?x?xi32>, %lengths: tensor<?x1xi32>)
    -> tensor<?x1x2051xi32> {
  %tokens = indexpool.select_paged %queries, %head_weights pages(%pages)
      block_table(%table) lengths(%lengths)
      {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<?x1x64x128xbf16>, tensor<?x1x64xf32>, tensor<?x8448xi8>,
         tensor<?x?xi32>, tensor<?x1xi32>) -> tensor<?x1x2051xi32>
  return %tokens : tensor<?x1x2051xi32>
}

func.func @prefill(%keys: tensor<?x128xbf16>, %scores: tensor<?xf32>,
    %pages: tensor<?x8448xi8>, %slots: tensor<?xi64>) -> tensor<?x8448xi8> {
  %prefilled = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<?x128xbf16>, tensor<?xf32>, tensor<?x8448xi8>, tensor<?xi64>)
        -> tensor<?x8448xi8>
  return %prefilled : tensor<?x8448xi8>
}
