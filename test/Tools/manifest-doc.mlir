// docs/manifest.md describes what indexpool-compile writes: every key of a
// fresh manifest is documented and every op of the computes table appears
// with its documented operand and property names (optional ones in
// brackets). The functions hold every dense op, unfused, optional
// operands included; the paged ops come from the hand-written manifests of
// test/Tools/indexpool-launch-paged.mlir.
// The doc's example is exactly what indexpool-compile writes for
// @compress_cache.
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_90 --fuse=false -o %t
// RUN: python3 %S/Inputs/check_manifest_doc.py %indexpool_src/docs/manifest.md --example=%t/compress_cache.sm_90.json %t/compress_cache.sm_90.json %t/append_in_place.sm_90.json %t/rows.sm_90.json %t/selection.sm_90.json %t/fused.sm_90.json %S/Inputs/launch/paged-compress.json %S/Inputs/launch/paged-select.json %S/Inputs/launch/paged-append.json | FileCheck %s
// CHECK: example ok
// CHECK: manifest doc ok: 15 ops, every key documented

func.func @rows(%k: tensor<64x64xbf16>, %s: tensor<64xf32>, %b: tensor<4xf32>,
    %c: tensor<16x64xi8>, %cs: tensor<16xf32>)
    -> (tensor<16x64xf8E4M3FN>, tensor<16xf32>, tensor<16x64xbf16>,
        tensor<64x64xbf16>, tensor<64x64xbf16>) {
  %p, %w = indexpool.pool %k, %s bias(%b) {pool_size = 4 : i64}
      : (tensor<64x64xbf16>, tensor<64xf32>, tensor<4xf32>) -> (tensor<16x64xbf16>, tensor<16x4xf32>)
  %h = indexpool.hadamard %p : (tensor<16x64xbf16>) -> tensor<16x64xbf16>
  %q, %qs = indexpool.quantize %h : (tensor<16x64xbf16>) -> (tensor<16x64xf8E4M3FN>, tensor<16xf32>)
  %d = indexpool.dequantize %c, %cs : (tensor<16x64xi8>, tensor<16xf32>) -> tensor<16x64xbf16>
  %r = indexpool.residual %k, %p {pool_size = 4 : i64} : (tensor<64x64xbf16>, tensor<16x64xbf16>) -> tensor<64x64xbf16>
  %k2 = indexpool.reconstruct %p residual(%r) {pool_size = 4 : i64} : (tensor<16x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %q, %qs, %d, %r, %k2 : tensor<16x64xf8E4M3FN>, tensor<16xf32>, tensor<16x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>
}

func.func @selection(%q: tensor<2x4x64xbf16>, %w: tensor<2x4xf32>,
    %keys: tensor<128x64xf8E4M3FN>, %s: tensor<128xf32>, %v: tensor<2xi32>,
    %cand: tensor<2x32xi32>)
    -> (tensor<2x32xi32>, tensor<2x32xi32>, tensor<2x8xi32>) {
  %l = indexpool.score %q, %w, %keys scales(%s) : (tensor<2x4x64xbf16>, tensor<2x4xf32>, tensor<128x64xf8E4M3FN>, tensor<128xf32>) -> tensor<2x128xf32>
  %vals, %idx = indexpool.topk %l valid(%v) {k = 8 : i64} : (tensor<2x128xf32>, tensor<2xi32>) -> (tensor<2x8xf32>, tensor<2x8xi32>)
  %t = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<2x8xi32>) -> tensor<2x32xi32>
  %t2 = indexpool.select %q, %w, %keys scales(%s) valid(%v) {k = 8 : i64, pool_size = 4 : i64} : (tensor<2x4x64xbf16>, tensor<2x4xf32>, tensor<128x64xf8E4M3FN>, tensor<128xf32>, tensor<2xi32>) -> tensor<2x32xi32>
  %t3 = indexpool.refine %q, %w, %cand, %keys scales(%s) {k = 8 : i64} : (tensor<2x4x64xbf16>, tensor<2x4xf32>, tensor<2x32xi32>, tensor<128x64xf8E4M3FN>, tensor<128xf32>) -> tensor<2x8xi32>
  return %t, %t2, %t3 : tensor<2x32xi32>, tensor<2x32xi32>, tensor<2x8xi32>
}

func.func @fused(%k: tensor<64x64xbf16>, %s: tensor<64xf32>, %b: tensor<4xf32>)
    -> (tensor<16x64xf8E4M3FN>, tensor<16xf32>) {
  %q, %qs, %w = indexpool.compress %k, %s bias(%b) {pool_size = 4 : i64, rotate}
      : (tensor<64x64xbf16>, tensor<64xf32>, tensor<4xf32>) -> (tensor<16x64xf8E4M3FN>, tensor<16xf32>, tensor<16x4xf32>)
  return %q, %qs : tensor<16x64xf8E4M3FN>, tensor<16xf32>
}

func.func @compress_cache(%keys: tensor<?x128xbf16>, %scores: tensor<?x128xf32>, %bias: tensor<4x128xf32>)
    -> (tensor<?x128xf8E4M3FN>, tensor<?xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%bias) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<?x128xbf16>, tensor<?x128xf32>, tensor<4x128xf32>) -> (tensor<?x128xf8E4M3FN>, tensor<?xf32>, tensor<?x4x128xf32>)
  return %q, %s : tensor<?x128xf8E4M3FN>, tensor<?xf32>
}

// The pages and tails of append_paged are outputs in place of the inputs.
func.func @append_in_place(%k: tensor<2x1x128xbf16>, %s: tensor<2x1xf32>,
    %tk: tensor<2x3x128xbf16>, %ts: tensor<2x3xf32>, %len: tensor<2xi32>,
    %pages: tensor<4x8448xi8>, %table: tensor<2x2xi32>)
    -> (tensor<4x8448xi8>, tensor<2x3x128xbf16>, tensor<2x3xf32>) {
  %p, %a, %b = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%len)
      into %pages block_table(%table) {pool_size = 4 : i64}
      : (tensor<2x1x128xbf16>, tensor<2x1xf32>, tensor<2x3x128xbf16>,
         tensor<2x3xf32>, tensor<2xi32>, tensor<4x8448xi8>, tensor<2x2xi32>)
        -> (tensor<4x8448xi8>, tensor<2x3x128xbf16>, tensor<2x3xf32>)
  return %p, %a, %b : tensor<4x8448xi8>, tensor<2x3x128xbf16>, tensor<2x3xf32>
}
