// One case per verifier rule of the paged ops; each message names the
// operand or result and what was expected.
// RUN: indexpool-opt %s -split-input-file -verify-diagnostics

func.func @page_bytes(%k: tensor<16x128xbf16>, %s: tensor<16xf32>, %p: tensor<4x8000xi8>, %sl: tensor<4xi64>) {
  // expected-error @+1 {{pages dimension 1 must be E * (D + 4) = 8448, got 8000}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64} : (tensor<16x128xbf16>, tensor<16xf32>, tensor<4x8000xi8>, tensor<4xi64>) -> tensor<4x8000xi8>
  return
}

// -----

func.func @page_type(%k: tensor<16x128xbf16>, %s: tensor<16xf32>, %p: tensor<4x8448xf32>, %sl: tensor<4xi64>) {
  // expected-error @+1 {{pages must have element type i8, got 'f32'}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64} : (tensor<16x128xbf16>, tensor<16xf32>, tensor<4x8448xf32>, tensor<4xi64>) -> tensor<4x8448xf32>
  return
}

// -----

func.func @slots_i32(%k: tensor<16x128xbf16>, %s: tensor<16xf32>, %p: tensor<4x8448xi8>, %sl: tensor<4xi32>) {
  // expected-error @+1 {{slots must have element type i64, got 'i32'}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64} : (tensor<16x128xbf16>, tensor<16xf32>, tensor<4x8448xi8>, tensor<4xi32>) -> tensor<4x8448xi8>
  return
}

// -----

func.func @slots_per_group(%k: tensor<18x128xbf16>, %s: tensor<18xf32>, %p: tensor<4x8448xi8>, %sl: tensor<5xi64>) {
  // expected-error @+1 {{slots dimension 0 must be G = floor(T / P) = 4, got 5}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64} : (tensor<18x128xbf16>, tensor<18xf32>, tensor<4x8448xi8>, tensor<5xi64>) -> tensor<4x8448xi8>
  return
}

// -----

func.func @codes_type(%k: tensor<16x128xbf16>, %s: tensor<16xf32>, %p: tensor<4x8448xi8>, %sl: tensor<4xi64>) {
  // expected-error @+1 {{codes must be f8E4M3FN, i8, i4 or f4E2M1FN, got 'f16'}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64, codes = f16} : (tensor<16x128xbf16>, tensor<16xf32>, tensor<4x8448xi8>, tensor<4xi64>) -> tensor<4x8448xi8>
  return
}

// -----

func.func @i4_page_bytes(%k: tensor<16x128xbf16>, %s: tensor<16xf32>, %p: tensor<4x8448xi8>, %sl: tensor<4xi64>) {
  // expected-error @+1 {{pages dimension 1 must be E * (D / 2 + 4) = 4352, got 8448}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64, codes = i4} : (tensor<16x128xbf16>, tensor<16xf32>, tensor<4x8448xi8>, tensor<4xi64>) -> tensor<4x8448xi8>
  return
}

// -----

func.func @i4_page_rank(%k: tensor<16x128xbf16>, %s: tensor<16xf32>, %p: tensor<4352xi8>, %sl: tensor<4xi64>) {
  // expected-error @+1 {{pages must be [pages, E * (D / 2 + 4)] (rank 2), got 'tensor<4352xi8>'}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64, codes = i4} : (tensor<16x128xbf16>, tensor<16xf32>, tensor<4352xi8>, tensor<4xi64>) -> tensor<4352xi8>
  return
}

// -----

func.func @i4_odd_dim(%q: tensor<1x1x2x35xf32>, %w: tensor<1x1x2xf32>, %p: tensor<2x1400xi8>, %t: tensor<1x2xi32>, %l: tensor<1x1xi32>) {
  // expected-error @+1 {{D must be even for i4 codes (two a byte), got 35}}
  %r = indexpool.select_paged %q, %w pages(%p) block_table(%t) lengths(%l) {k = 2 : i64, pool_size = 4 : i64, codes = i4} : (tensor<1x1x2x35xf32>, tensor<1x1x2xf32>, tensor<2x1400xi8>, tensor<1x2xi32>, tensor<1x1xi32>) -> tensor<1x1x11xi32>
  return
}

// -----

func.func @i4_min_absmax(%k: tensor<16x128xbf16>, %s: tensor<16xf32>, %p: tensor<4x4352xi8>, %sl: tensor<4xi64>) {
  // expected-error @+1 {{min_absmax must be at least 8.22846e-38 (7 * 2^-126, so that every i4 scale is a normal f32), got 1e-40}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64, codes = i4, min_absmax = 1.0e-40 : f32} : (tensor<16x128xbf16>, tensor<16xf32>, tensor<4x4352xi8>, tensor<4xi64>) -> tensor<4x4352xi8>
  return
}

// -----

func.func @entries(%k: tensor<16x128xbf16>, %s: tensor<16xf32>, %p: tensor<4x8448xi8>, %sl: tensor<4xi64>) {
  // expected-error @+1 {{page_entries must be at least 1, got 0}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64, page_entries = 0 : i64} : (tensor<16x128xbf16>, tensor<16xf32>, tensor<4x8448xi8>, tensor<4xi64>) -> tensor<4x8448xi8>
  return
}

// -----

func.func @page_overflow(%k: tensor<16x128xbf16>, %s: tensor<16xf32>, %p: tensor<4x?xi8>, %sl: tensor<4xi64>) {
  // expected-error @+1 {{a page of E = 4611686018427387904 entries of D = 128 overflows int64}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64, page_entries = 4611686018427387904 : i64} : (tensor<16x128xbf16>, tensor<16xf32>, tensor<4x?xi8>, tensor<4xi64>) -> tensor<4x?xi8>
  return
}

// -----

func.func @result_is_pages(%k: tensor<16x128xbf16>, %s: tensor<16xf32>, %p: tensor<4x8448xi8>, %sl: tensor<4xi64>) {
  // expected-error @+1 {{result must have the type of pages 'tensor<4x8448xi8>', got 'tensor<5x8448xi8>'}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64} : (tensor<16x128xbf16>, tensor<16xf32>, tensor<4x8448xi8>, tensor<4xi64>) -> tensor<5x8448xi8>
  return
}

// -----

func.func @i8_min_absmax(%k: tensor<16x128xbf16>, %s: tensor<16xf32>, %p: tensor<4x8448xi8>, %sl: tensor<4xi64>) {
  // expected-error @+1 {{min_absmax must be at least 1.49288e-36 (127 * 2^-126, so that every i8 scale is a normal f32), got 1e-37}}
  %r = indexpool.compress_paged %k, %s into %p at %sl {pool_size = 4 : i64, codes = i8, min_absmax = 1.0e-37 : f32} : (tensor<16x128xbf16>, tensor<16xf32>, tensor<4x8448xi8>, tensor<4xi64>) -> tensor<4x8448xi8>
  return
}

// -----

func.func @select_query_rank(%q: tensor<8x64x128xbf16>, %w: tensor<8x1x64xf32>, %p: tensor<4x8448xi8>, %t: tensor<8x2xi32>, %l: tensor<8x1xi32>) {
  // expected-error @+1 {{query must be [B, S, H, D] (rank 4), got 'tensor<8x64x128xbf16>'}}
  %r = indexpool.select_paged %q, %w pages(%p) block_table(%t) lengths(%l) {k = 4 : i64, pool_size = 4 : i64} : (tensor<8x64x128xbf16>, tensor<8x1x64xf32>, tensor<4x8448xi8>, tensor<8x2xi32>, tensor<8x1xi32>) -> tensor<8x1x19xi32>
  return
}

// -----

func.func @select_table_batch(%q: tensor<8x1x64x128xbf16>, %w: tensor<8x1x64xf32>, %p: tensor<4x8448xi8>, %t: tensor<7x2xi32>, %l: tensor<8x1xi32>) {
  // expected-error @+1 {{block_table dimension 0 must be B = 8, got 7}}
  %r = indexpool.select_paged %q, %w pages(%p) block_table(%t) lengths(%l) {k = 4 : i64, pool_size = 4 : i64} : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<4x8448xi8>, tensor<7x2xi32>, tensor<8x1xi32>) -> tensor<8x1x19xi32>
  return
}

// -----

func.func @select_lengths(%q: tensor<8x2x64x128xbf16>, %w: tensor<8x2x64xf32>, %p: tensor<4x8448xi8>, %t: tensor<8x2xi32>, %l: tensor<8x1xi32>) {
  // expected-error @+1 {{lengths dimension 1 must be S = 2, got 1}}
  %r = indexpool.select_paged %q, %w pages(%p) block_table(%t) lengths(%l) {k = 4 : i64, pool_size = 4 : i64} : (tensor<8x2x64x128xbf16>, tensor<8x2x64xf32>, tensor<4x8448xi8>, tensor<8x2xi32>, tensor<8x1xi32>) -> tensor<8x2x19xi32>
  return
}

// -----

func.func @select_k_capacity(%q: tensor<8x1x64x128xbf16>, %w: tensor<8x1x64xf32>, %p: tensor<4x8448xi8>, %t: tensor<8x2xi32>, %l: tensor<8x1xi32>) {
  // expected-error @+1 {{k must be at most max_pages * E = 128 (the entries a block table row holds), got 129}}
  %r = indexpool.select_paged %q, %w pages(%p) block_table(%t) lengths(%l) {k = 129 : i64, pool_size = 4 : i64} : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<4x8448xi8>, tensor<8x2xi32>, tensor<8x1xi32>) -> tensor<8x1x519xi32>
  return
}

// -----

func.func @select_token_width(%q: tensor<8x1x64x128xbf16>, %w: tensor<8x1x64xf32>, %p: tensor<4x8448xi8>, %t: tensor<8x2xi32>, %l: tensor<8x1xi32>) {
  // expected-error @+1 {{result 'tokens' dimension 2 must be k * P + P - 1 = 19, got 16}}
  %r = indexpool.select_paged %q, %w pages(%p) block_table(%t) lengths(%l) {k = 4 : i64, pool_size = 4 : i64} : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<4x8448xi8>, tensor<8x2xi32>, tensor<8x1xi32>) -> tensor<8x1x16xi32>
  return
}

// -----

func.func @select_token_indices(%q: tensor<1x1x64x128xbf16>, %w: tensor<1x1x64xf32>, %p: tensor<4x8448xi8>, %t: tensor<1x16777216xi32>, %l: tensor<1x1xi32>) {
  // expected-error @+1 {{max_pages * E * P = 1073741824 * 4 = 4294967296 tokens do not fit the i32 token indices (at most 2^31)}}
  %r = indexpool.select_paged %q, %w pages(%p) block_table(%t) lengths(%l) {k = 4 : i64, pool_size = 4 : i64} : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<4x8448xi8>, tensor<1x16777216xi32>, tensor<1x1xi32>) -> tensor<1x1x19xi32>
  return
}

// -----

func.func @append_tail_rows(%k: tensor<8x1x128xbf16>, %s: tensor<8x1xbf16>, %tk: tensor<8x4x128xbf16>, %ts: tensor<8x3xbf16>, %l: tensor<8xi32>, %p: tensor<4x8448xi8>, %t: tensor<8x2xi32>) {
  // expected-error @+1 {{tail_keys dimension 1 must be P - 1 = 3, got 4}}
  %r:3 = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%l) into %p block_table(%t) {pool_size = 4 : i64} : (tensor<8x1x128xbf16>, tensor<8x1xbf16>, tensor<8x4x128xbf16>, tensor<8x3xbf16>, tensor<8xi32>, tensor<4x8448xi8>, tensor<8x2xi32>) -> (tensor<4x8448xi8>, tensor<8x4x128xbf16>, tensor<8x3xbf16>)
  return
}

// -----

func.func @append_tail_type(%k: tensor<8x1x128xbf16>, %s: tensor<8x1xbf16>, %tk: tensor<8x3x128xf32>, %ts: tensor<8x3xbf16>, %l: tensor<8xi32>, %p: tensor<4x8448xi8>, %t: tensor<8x2xi32>) {
  // expected-error @+1 {{tail_keys must have the keys' element type 'bf16', got 'f32'}}
  %r:3 = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%l) into %p block_table(%t) {pool_size = 4 : i64} : (tensor<8x1x128xbf16>, tensor<8x1xbf16>, tensor<8x3x128xf32>, tensor<8x3xbf16>, tensor<8xi32>, tensor<4x8448xi8>, tensor<8x2xi32>) -> (tensor<4x8448xi8>, tensor<8x3x128xf32>, tensor<8x3xbf16>)
  return
}

// -----

func.func @append_tail_scores(%k: tensor<8x1x128xbf16>, %s: tensor<8x1x128xbf16>, %tk: tensor<8x3x128xbf16>, %ts: tensor<8x3xbf16>, %l: tensor<8xi32>, %p: tensor<4x8448xi8>, %t: tensor<8x2xi32>) {
  // expected-error @+1 {{tail_scores must be [B, P - 1, D] like the per-channel scores (rank 3), got 'tensor<8x3xbf16>'}}
  %r:3 = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%l) into %p block_table(%t) {pool_size = 4 : i64} : (tensor<8x1x128xbf16>, tensor<8x1x128xbf16>, tensor<8x3x128xbf16>, tensor<8x3xbf16>, tensor<8xi32>, tensor<4x8448xi8>, tensor<8x2xi32>) -> (tensor<4x8448xi8>, tensor<8x3x128xbf16>, tensor<8x3xbf16>)
  return
}

// -----

func.func @append_lengths(%k: tensor<8x1x128xbf16>, %s: tensor<8x1xbf16>, %tk: tensor<8x3x128xbf16>, %ts: tensor<8x3xbf16>, %l: tensor<8x1xi32>, %p: tensor<4x8448xi8>, %t: tensor<8x2xi32>) {
  // expected-error @+1 {{lengths must be [B] (rank 1), got 'tensor<8x1xi32>'}}
  %r:3 = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%l) into %p block_table(%t) {pool_size = 4 : i64} : (tensor<8x1x128xbf16>, tensor<8x1xbf16>, tensor<8x3x128xbf16>, tensor<8x3xbf16>, tensor<8x1xi32>, tensor<4x8448xi8>, tensor<8x2xi32>) -> (tensor<4x8448xi8>, tensor<8x3x128xbf16>, tensor<8x3xbf16>)
  return
}

// -----

func.func @append_new_tail(%k: tensor<8x1x128xbf16>, %s: tensor<8x1xbf16>, %tk: tensor<8x3x128xbf16>, %ts: tensor<8x3xbf16>, %l: tensor<8xi32>, %p: tensor<4x8448xi8>, %t: tensor<8x2xi32>) {
  // expected-error @+1 {{result 'new_tail_scores' must have the type of tail_scores 'tensor<8x3xbf16>', got 'tensor<8x3xf32>'}}
  %r:3 = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%l) into %p block_table(%t) {pool_size = 4 : i64} : (tensor<8x1x128xbf16>, tensor<8x1xbf16>, tensor<8x3x128xbf16>, tensor<8x3xbf16>, tensor<8xi32>, tensor<4x8448xi8>, tensor<8x2xi32>) -> (tensor<4x8448xi8>, tensor<8x3x128xbf16>, tensor<8x3xf32>)
  return
}

// -----

func.func @append_rotate(%k: tensor<8x1x96xbf16>, %s: tensor<8x1xbf16>, %tk: tensor<8x3x96xbf16>, %ts: tensor<8x3xbf16>, %l: tensor<8xi32>, %p: tensor<4x6400xi8>, %t: tensor<8x2xi32>) {
  // expected-error @+1 {{keys' dimension D must be a power of two <= 1024 to be rotated, got 96}}
  %r:3 = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%l) into %p block_table(%t) {pool_size = 4 : i64, rotate} : (tensor<8x1x96xbf16>, tensor<8x1xbf16>, tensor<8x3x96xbf16>, tensor<8x3xbf16>, tensor<8xi32>, tensor<4x6400xi8>, tensor<8x2xi32>) -> (tensor<4x6400xi8>, tensor<8x3x96xbf16>, tensor<8x3xbf16>)
  return
}

// -----

func.func @refine_candidates_rank(%q: tensor<8x1x64x128xbf16>, %w: tensor<8x1x64xf32>, %c: tensor<8x16xi32>, %p: tensor<4x33792xi8>, %t: tensor<8x2xi32>, %l: tensor<8x1xi32>) {
  // expected-error @+1 {{candidates must be [B, S, C] (rank 3), got 'tensor<8x16xi32>'}}
  %r = indexpool.refine_paged %q, %w, %c pages(%p) block_table(%t) lengths(%l) {k = 4 : i64, page_entries = 256 : i64} : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<8x16xi32>, tensor<4x33792xi8>, tensor<8x2xi32>, tensor<8x1xi32>) -> tensor<8x1x4xi32>
  return
}

// -----

func.func @refine_candidates_rows(%q: tensor<8x2x64x128xbf16>, %w: tensor<8x2x64xf32>, %c: tensor<8x1x16xi32>, %p: tensor<4x33792xi8>, %t: tensor<8x2xi32>, %l: tensor<8x2xi32>) {
  // expected-error @+1 {{candidates dimension 1 must be S = 2, got 1}}
  %r = indexpool.refine_paged %q, %w, %c pages(%p) block_table(%t) lengths(%l) {k = 4 : i64, page_entries = 256 : i64} : (tensor<8x2x64x128xbf16>, tensor<8x2x64xf32>, tensor<8x1x16xi32>, tensor<4x33792xi8>, tensor<8x2xi32>, tensor<8x2xi32>) -> tensor<8x2x4xi32>
  return
}

// -----

func.func @refine_page_bytes(%q: tensor<8x1x64x128xbf16>, %w: tensor<8x1x64xf32>, %c: tensor<8x1x16xi32>, %p: tensor<4x8448xi8>, %t: tensor<8x2xi32>, %l: tensor<8x1xi32>) {
  // expected-error @+1 {{pages dimension 1 must be E * (D + 4) = 33792, got 8448}}
  %r = indexpool.refine_paged %q, %w, %c pages(%p) block_table(%t) lengths(%l) {k = 4 : i64, page_entries = 256 : i64} : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<8x1x16xi32>, tensor<4x8448xi8>, tensor<8x2xi32>, tensor<8x1xi32>) -> tensor<8x1x4xi32>
  return
}

// -----

func.func @refine_paged_candidates_beyond_i32(%q: tensor<8x1x64x128xbf16>, %w: tensor<8x1x64xf32>, %c: tensor<8x1x8589934592xi32>, %p: tensor<4x33792xi8>, %t: tensor<8x2xi32>, %l: tensor<8x1xi32>) {
  // expected-error @+1 {{C = 8589934592 candidates of a row do not fit the i32 positions of a row (at most 2^31 - 1)}}
  %r = indexpool.refine_paged %q, %w, %c pages(%p) block_table(%t) lengths(%l) {k = 4 : i64, page_entries = 256 : i64} : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<8x1x8589934592xi32>, tensor<4x33792xi8>, tensor<8x2xi32>, tensor<8x1xi32>) -> tensor<8x1x4xi32>
  return
}

// -----

func.func @refine_k_candidates(%q: tensor<8x1x64x128xbf16>, %w: tensor<8x1x64xf32>, %c: tensor<8x1x16xi32>, %p: tensor<4x33792xi8>, %t: tensor<8x2xi32>, %l: tensor<8x1xi32>) {
  // expected-error @+1 {{k must be at most C = 16 (the candidates of a row), got 17}}
  %r = indexpool.refine_paged %q, %w, %c pages(%p) block_table(%t) lengths(%l) {k = 17 : i64, page_entries = 256 : i64} : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<8x1x16xi32>, tensor<4x33792xi8>, tensor<8x2xi32>, tensor<8x1xi32>) -> tensor<8x1x17xi32>
  return
}

// -----

func.func @refine_k_zero(%q: tensor<8x1x64x128xbf16>, %w: tensor<8x1x64xf32>, %c: tensor<8x1x16xi32>, %p: tensor<4x33792xi8>, %t: tensor<8x2xi32>, %l: tensor<8x1xi32>) {
  // expected-error @+1 {{k must be positive, got 0}}
  %r = indexpool.refine_paged %q, %w, %c pages(%p) block_table(%t) lengths(%l) {k = 0 : i64, page_entries = 256 : i64} : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<8x1x16xi32>, tensor<4x33792xi8>, tensor<8x2xi32>, tensor<8x1xi32>) -> tensor<8x1x0xi32>
  return
}

// -----

func.func @refine_result(%q: tensor<8x1x64x128xbf16>, %w: tensor<8x1x64xf32>, %c: tensor<8x1x16xi32>, %p: tensor<4x33792xi8>, %t: tensor<8x2xi32>, %l: tensor<8x1xi32>) {
  // expected-error @+1 {{result 'tokens' dimension 2 must be K = 4, got 5}}
  %r = indexpool.refine_paged %q, %w, %c pages(%p) block_table(%t) lengths(%l) {k = 4 : i64, page_entries = 256 : i64} : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<8x1x16xi32>, tensor<4x33792xi8>, tensor<8x2xi32>, tensor<8x1xi32>) -> tensor<8x1x5xi32>
  return
}

// -----

func.func @refine_token_ids(%q: tensor<1x1x64x128xbf16>, %w: tensor<1x1x64xf32>, %c: tensor<1x1x16xi32>, %p: tensor<4x33792xi8>, %t: tensor<1x16777216xi32>, %l: tensor<1x1xi32>) {
  // expected-error @+1 {{max_pages * E * P = 4294967296 * 1 = 4294967296 tokens do not fit the i32 token indices (at most 2^31)}}
  %r = indexpool.refine_paged %q, %w, %c pages(%p) block_table(%t) lengths(%l) {k = 4 : i64, page_entries = 256 : i64} : (tensor<1x1x64x128xbf16>, tensor<1x1x64xf32>, tensor<1x1x16xi32>, tensor<4x33792xi8>, tensor<1x16777216xi32>, tensor<1x1xi32>) -> tensor<1x1x4xi32>
  return
}

// -----

// The paged forms take pool_size = 1 (the token tier) but no other
// non-power of two.
func.func @append_pool_size(%k: tensor<8x1x128xbf16>, %s: tensor<8x1xbf16>, %tk: tensor<8x2x128xbf16>, %ts: tensor<8x2xbf16>, %l: tensor<8xi32>, %p: tensor<4x8448xi8>, %t: tensor<8x2xi32>) {
  // expected-error @+1 {{pool_size must be 1 or a power of two in [2, 64], got 3}}
  %r:3 = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%l) into %p block_table(%t) {pool_size = 3 : i64} : (tensor<8x1x128xbf16>, tensor<8x1xbf16>, tensor<8x2x128xbf16>, tensor<8x2xbf16>, tensor<8xi32>, tensor<4x8448xi8>, tensor<8x2xi32>) -> (tensor<4x8448xi8>, tensor<8x2x128xbf16>, tensor<8x2xbf16>)
  return
}
