// The paged forms (docs/serving-layout.md) with the production layout (D =
// 128, E = 64: 8448-byte pages), i8 codes with the scales first, dynamic
// sizes; printed, re-parsed and printed again, and through the generic form.
// RUN: indexpool-opt %s --verify-roundtrip | indexpool-opt | FileCheck %s
// RUN: indexpool-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: indexpool-opt %s --mlir-print-op-generic | indexpool-opt | FileCheck %s

// CHECK-LABEL: func.func @compress_into_pages
// CHECK: indexpool.compress_paged %{{.*}}, %{{.*}} bias(%{{.*}}) into %{{.*}} at %{{.*}} {pool_size = 4 : i64, pow2_scale, rotate} : (tensor<4096x128xbf16>, tensor<4096xf32>, tensor<4xf32>, tensor<1024x8448xi8>, tensor<1024xi64>) -> tensor<1024x8448xi8>
// GENERIC-LABEL: sym_name = "compress_into_pages"
// GENERIC: "indexpool.compress_paged"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{min_absmax = 9.99999974E-5 : f32, page_entries = 64 : i64, pool_size = 4 : i64, pow2_scale, rotate, temperature = 1.000000e+00 : f32}>
func.func @compress_into_pages(%keys: tensor<4096x128xbf16>, %scores: tensor<4096xf32>,
    %b: tensor<4xf32>, %pages: tensor<1024x8448xi8>, %slots: tensor<1024xi64>)
    -> tensor<1024x8448xi8> {
  %p = indexpool.compress_paged %keys, %scores bias(%b) into %pages at %slots
      {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<4096x128xbf16>, tensor<4096xf32>, tensor<4xf32>,
         tensor<1024x8448xi8>, tensor<1024xi64>) -> tensor<1024x8448xi8>
  return %p : tensor<1024x8448xi8>
}

// 16 entries of D = 64 with i8 codes, scales first: 16 * 68 = 1088 bytes.
// CHECK-LABEL: func.func @compress_i8_scales_first
// CHECK: indexpool.compress_paged %{{.*}}, %{{.*}} into %{{.*}} at %{{.*}} {codes = i8, page_entries = 16 : i64, pool_size = 2 : i64, scales_first} : (tensor<?x64xf16>, tensor<?x64xf16>, tensor<?x1088xi8>, tensor<?xi64>) -> tensor<?x1088xi8>
func.func @compress_i8_scales_first(%keys: tensor<?x64xf16>, %scores: tensor<?x64xf16>,
    %pages: tensor<?x1088xi8>, %slots: tensor<?xi64>) -> tensor<?x1088xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 2 : i64, page_entries = 16 : i64, codes = i8, scales_first}
      : (tensor<?x64xf16>, tensor<?x64xf16>, tensor<?x1088xi8>, tensor<?xi64>)
        -> tensor<?x1088xi8>
  return %p : tensor<?x1088xi8>
}

// Decode: 8 sequences, one query row each (next_n = 1), and a speculative
// step with 2 rows per sequence; k * P + P - 1 = 2051 and 67 token slots.
// CHECK-LABEL: func.func @select_decode
// CHECK: indexpool.select_paged %{{.*}}, %{{.*}} pages(%{{.*}}) block_table(%{{.*}}) lengths(%{{.*}}) {k = 512 : i64, pool_size = 4 : i64} : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<1024x8448xi8>, tensor<8x128xi32>, tensor<8x1xi32>) -> tensor<8x1x2051xi32>
// CHECK: indexpool.select_paged {{.*}} {k = 16 : i64, pool_size = 4 : i64} : (tensor<?x2x64x128xf8E4M3FN>, tensor<?x2x64xf32>, tensor<?x8448xi8>, tensor<?x?xi32>, tensor<?x2xi32>) -> tensor<?x2x67xi32>
// GENERIC-LABEL: sym_name = "select_decode"
// GENERIC: "indexpool.select_paged"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{k = 512 : i64, page_entries = 64 : i64, pool_size = 4 : i64}>
func.func @select_decode(%q: tensor<8x1x64x128xbf16>, %w: tensor<8x1x64xf32>,
    %pages: tensor<1024x8448xi8>, %table: tensor<8x128xi32>, %len: tensor<8x1xi32>,
    %q2: tensor<?x2x64x128xf8E4M3FN>, %w2: tensor<?x2x64xf32>, %pages2: tensor<?x8448xi8>,
    %table2: tensor<?x?xi32>, %len2: tensor<?x2xi32>)
    -> (tensor<8x1x2051xi32>, tensor<?x2x67xi32>) {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table) lengths(%len)
      {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<1024x8448xi8>,
         tensor<8x128xi32>, tensor<8x1xi32>) -> tensor<8x1x2051xi32>
  %t2 = indexpool.select_paged %q2, %w2 pages(%pages2) block_table(%table2) lengths(%len2)
      {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<?x2x64x128xf8E4M3FN>, tensor<?x2x64xf32>, tensor<?x8448xi8>,
         tensor<?x?xi32>, tensor<?x2xi32>) -> tensor<?x2x67xi32>
  return %t, %t2 : tensor<8x1x2051xi32>, tensor<?x2x67xi32>
}

// CHECK-LABEL: func.func @append_step
// CHECK: indexpool.append_paged %{{.*}}, %{{.*}} bias(%{{.*}}) tail(%{{.*}}, %{{.*}}) lengths(%{{.*}}) into %{{.*}} block_table(%{{.*}}) {pool_size = 4 : i64, rotate} : (tensor<8x1x128xbf16>, tensor<8x1xbf16>, tensor<4xf32>, tensor<8x3x128xbf16>, tensor<8x3xbf16>, tensor<8xi32>, tensor<1024x8448xi8>, tensor<8x128xi32>) -> (tensor<1024x8448xi8>, tensor<8x3x128xbf16>, tensor<8x3xbf16>)
// GENERIC-LABEL: sym_name = "append_step"
// GENERIC: "indexpool.append_paged"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{min_absmax
func.func @append_step(%keys: tensor<8x1x128xbf16>, %scores: tensor<8x1xbf16>, %b: tensor<4xf32>,
    %tk: tensor<8x3x128xbf16>, %ts: tensor<8x3xbf16>, %len: tensor<8xi32>,
    %pages: tensor<1024x8448xi8>, %table: tensor<8x128xi32>)
    -> (tensor<1024x8448xi8>, tensor<8x3x128xbf16>, tensor<8x3xbf16>) {
  %p, %tk2, %ts2 = indexpool.append_paged %keys, %scores bias(%b)
      tail(%tk, %ts) lengths(%len) into %pages block_table(%table)
      {pool_size = 4 : i64, rotate}
      : (tensor<8x1x128xbf16>, tensor<8x1xbf16>, tensor<4xf32>, tensor<8x3x128xbf16>,
         tensor<8x3xbf16>, tensor<8xi32>, tensor<1024x8448xi8>, tensor<8x128xi32>)
        -> (tensor<1024x8448xi8>, tensor<8x3x128xbf16>, tensor<8x3xbf16>)
  return %p, %tk2, %ts2 : tensor<1024x8448xi8>, tensor<8x3x128xbf16>, tensor<8x3xbf16>
}

// The second stage on the token tier (one entry per token, E = 4 x 64 = 256:
// 256 * 132 = 33792-byte pages, one page per pooled page): 2048 of the 8195
// candidates select_paged gives; dynamic sizes.
// CHECK-LABEL: func.func @refine_tokens
// CHECK: indexpool.refine_paged %{{.*}}, %{{.*}}, %{{.*}} pages(%{{.*}}) block_table(%{{.*}}) lengths(%{{.*}}) {k = 2048 : i64, page_entries = 256 : i64} : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<8x1x8195xi32>, tensor<1024x33792xi8>, tensor<8x128xi32>, tensor<8x1xi32>) -> tensor<8x1x2048xi32>
// CHECK: indexpool.refine_paged {{.*}} {codes = i8, k = 8 : i64, page_entries = 16 : i64, scales_first} : (tensor<?x2x16x64xf8E4M3FN>, tensor<?x2x16xf32>, tensor<?x2x?xi32>, tensor<?x1088xi8>, tensor<?x?xi32>, tensor<?x2xi32>) -> tensor<?x2x8xi32>
// GENERIC-LABEL: sym_name = "refine_tokens"
// GENERIC: "indexpool.refine_paged"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{k = 2048 : i64, page_entries = 256 : i64}>
func.func @refine_tokens(%q: tensor<8x1x64x128xbf16>, %w: tensor<8x1x64xf32>,
    %cand: tensor<8x1x8195xi32>, %tokens: tensor<1024x33792xi8>,
    %table: tensor<8x128xi32>, %len: tensor<8x1xi32>,
    %q2: tensor<?x2x16x64xf8E4M3FN>, %w2: tensor<?x2x16xf32>, %cand2: tensor<?x2x?xi32>,
    %tokens2: tensor<?x1088xi8>, %table2: tensor<?x?xi32>, %len2: tensor<?x2xi32>)
    -> (tensor<8x1x2048xi32>, tensor<?x2x8xi32>) {
  %t = indexpool.refine_paged %q, %w, %cand pages(%tokens) block_table(%table)
      lengths(%len) {k = 2048 : i64, page_entries = 256 : i64}
      : (tensor<8x1x64x128xbf16>, tensor<8x1x64xf32>, tensor<8x1x8195xi32>,
         tensor<1024x33792xi8>, tensor<8x128xi32>, tensor<8x1xi32>)
        -> tensor<8x1x2048xi32>
  %t2 = indexpool.refine_paged %q2, %w2, %cand2 pages(%tokens2) block_table(%table2)
      lengths(%len2) {k = 8 : i64, page_entries = 16 : i64, codes = i8, scales_first}
      : (tensor<?x2x16x64xf8E4M3FN>, tensor<?x2x16xf32>, tensor<?x2x?xi32>,
         tensor<?x1088xi8>, tensor<?x?xi32>, tensor<?x2xi32>) -> tensor<?x2x8xi32>
  return %t, %t2 : tensor<8x1x2048xi32>, tensor<?x2x8xi32>
}
