// The paged forms on the CPU (docs/serving-layout.md). compress_paged writes,
// byte for byte, the dense compress of the same keys at each group's slot
// (codes, then the f32 scale at the production offsets; skipped slots and
// every other byte unchanged), checked by Inputs/check_pages.py on the
// compiled code's own outputs; and it matches the float64 reference.
// select_paged and append_paged match it too (below; the edges of their
// lengths are in paged-edges.mlir, a decode loop in decode-chain.mlir).
// RUN: indexpool-run %s --function=both --random-inputs=5 --output=@%t.out.npy --output=@%t.codes.npy --output=@%t.scales.npy --output=@%t.in.npy --output=@%t.slots.npy --verify | FileCheck %s --check-prefix=VERIFY
// RUN: python3 %S/Inputs/check_pages.py 64 128 %t.out.npy %t.codes.npy %t.scales.npy %t.in.npy %t.slots.npy | FileCheck %s --check-prefix=PAGES
// RUN: indexpool-run %s --function=i8_scales_first --random-inputs=6 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=dynamic --random-inputs=7 --input-shape=0:803x64 --input-shape=1:803x64 --input-shape=2:7x4352 --input-shape=3:200 --verify | FileCheck %s --check-prefix=ONE

// VERIFY-COUNT-5: -> ok
// VERIFY-NOT: FAILED
// PAGES: pages ok: {{[1-9][0-9]*}} groups written, {{[1-9][0-9]*}} skipped
// ONE: result #0 {{.*}} -> ok

func.func @both(%keys: tensor<1027x128xbf16>, %scores: tensor<1027xf32>,
    %pages: tensor<8x8448xi8>, %slots: tensor<256xi64>)
    -> (tensor<8x8448xi8>, tensor<256x128xf8E4M3FN>, tensor<256xf32>,
        tensor<8x8448xi8>, tensor<256xi64>) {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1027x128xbf16>, tensor<1027xf32>, tensor<8x8448xi8>,
         tensor<256xi64>) -> tensor<8x8448xi8>
  %q, %s, %w = indexpool.compress %keys, %scores
      {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1027x128xbf16>, tensor<1027xf32>)
        -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>)
  return %p, %q, %s, %pages, %slots : tensor<8x8448xi8>, tensor<256x128xf8E4M3FN>,
      tensor<256xf32>, tensor<8x8448xi8>, tensor<256xi64>
}

// i8 codes, scales first, 16 entries of D = 64 per page, per-channel scores.
func.func @i8_scales_first(%keys: tensor<512x64xf16>, %scores: tensor<512x64xf16>,
    %b: tensor<2x64xf32>, %pages: tensor<20x1088xi8>, %slots: tensor<256xi64>)
    -> tensor<20x1088xi8> {
  %p = indexpool.compress_paged %keys, %scores bias(%b) into %pages at %slots
      {pool_size = 2 : i64, page_entries = 16 : i64, codes = i8, scales_first}
      : (tensor<512x64xf16>, tensor<512x64xf16>, tensor<2x64xf32>,
         tensor<20x1088xi8>, tensor<256xi64>) -> tensor<20x1088xi8>
  return %p : tensor<20x1088xi8>
}

func.func @dynamic(%keys: tensor<?x?xf32>, %scores: tensor<?x?xf32>,
    %pages: tensor<?x?xi8>, %slots: tensor<?xi64>) -> tensor<?x?xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, rotate}
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xi64>)
        -> tensor<?x?xi8>
  return %p : tensor<?x?xi8>
}

// select_paged and append_paged on random inputs (valid block tables,
// lengths within the table, random page bytes), S = 2 query rows per
// sequence, static and dynamic shapes, i8 codes with the scales first.
// RUN: indexpool-run %s --function=select --random-inputs=11 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select --random-inputs=12 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_i8 --random-inputs=13 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_i8 --random-inputs=14 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_dynamic --random-inputs=15 --input-shape=0:5x2x3x96 --input-shape=1:5x2x3 --input-shape=2:9x3200 --input-shape=3:5x3 --input-shape=4:5x2 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=append --random-inputs=16 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=append --random-inputs=17 --verify --check-bounds | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=append_i8 --random-inputs=18 --verify --check-bounds | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=append_dynamic --random-inputs=19 --input-shape=0:6x5x96 --input-shape=1:6x5 --input-shape=2:6x3x96 --input-shape=3:6x3 --input-shape=4:6 --input-shape=5:13x6400 --input-shape=6:6x2 --verify --check-bounds | FileCheck %s --check-prefix=THREE

// THREE-COUNT-3: -> ok
// THREE-NOT: FAILED

func.func @select(%q: tensor<3x2x4x128xbf16>, %w: tensor<3x2x4xf32>,
    %pages: tensor<16x8448xi8>, %table: tensor<3x4xi32>,
    %len: tensor<3x2xi32>) -> tensor<3x2x35xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 8 : i64, pool_size = 4 : i64}
      : (tensor<3x2x4x128xbf16>, tensor<3x2x4xf32>, tensor<16x8448xi8>,
         tensor<3x4xi32>, tensor<3x2xi32>) -> tensor<3x2x35xi32>
  return %t : tensor<3x2x35xi32>
}

// i8 codes, scales first, 16 entries of D = 64 per page, P = 2.
func.func @select_i8(%q: tensor<4x2x8x64xf16>, %w: tensor<4x2x8xf32>,
    %pages: tensor<20x1088xi8>, %table: tensor<4x5xi32>,
    %len: tensor<4x2xi32>) -> tensor<4x2x13xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len)
      {k = 6 : i64, pool_size = 2 : i64, page_entries = 16 : i64, codes = i8,
       scales_first}
      : (tensor<4x2x8x64xf16>, tensor<4x2x8xf32>, tensor<20x1088xi8>,
         tensor<4x5xi32>, tensor<4x2xi32>) -> tensor<4x2x13xi32>
  return %t : tensor<4x2x13xi32>
}

// D = 96 (a masked tail chunk), E = 32.
func.func @select_dynamic(%q: tensor<?x?x?x?xf32>, %w: tensor<?x?x?xf32>,
    %pages: tensor<?x?xi8>, %table: tensor<?x?xi32>, %len: tensor<?x?xi32>)
    -> tensor<?x?x?xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 5 : i64, pool_size = 4 : i64, page_entries = 32 : i64}
      : (tensor<?x?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xi8>,
         tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<?x?x?xi32>
  return %t : tensor<?x?x?xi32>
}

func.func @append(%k: tensor<3x5x128xbf16>, %s: tensor<3x5xf32>,
    %tk: tensor<3x3x128xbf16>, %ts: tensor<3x3xf32>, %len: tensor<3xi32>,
    %pages: tensor<16x8448xi8>, %table: tensor<3x4xi32>)
    -> (tensor<16x8448xi8>, tensor<3x3x128xbf16>, tensor<3x3xf32>) {
  %p, %a, %b = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%len)
      into %pages block_table(%table) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<3x5x128xbf16>, tensor<3x5xf32>, tensor<3x3x128xbf16>,
         tensor<3x3xf32>, tensor<3xi32>, tensor<16x8448xi8>, tensor<3x4xi32>)
        -> (tensor<16x8448xi8>, tensor<3x3x128xbf16>, tensor<3x3xf32>)
  return %p, %a, %b : tensor<16x8448xi8>, tensor<3x3x128xbf16>, tensor<3x3xf32>
}

// i8 codes, scales first, per-channel f16 scores with a bias, P = 2.
func.func @append_i8(%k: tensor<4x3x64xf16>, %s: tensor<4x3x64xf16>,
    %bias: tensor<2x64xf32>, %tk: tensor<4x1x64xf16>, %ts: tensor<4x1x64xf16>,
    %len: tensor<4xi32>, %pages: tensor<20x1088xi8>, %table: tensor<4x5xi32>)
    -> (tensor<20x1088xi8>, tensor<4x1x64xf16>, tensor<4x1x64xf16>) {
  %p, %a, %b = indexpool.append_paged %k, %s bias(%bias) tail(%tk, %ts)
      lengths(%len) into %pages block_table(%table)
      {pool_size = 2 : i64, page_entries = 16 : i64, codes = i8, scales_first}
      : (tensor<4x3x64xf16>, tensor<4x3x64xf16>, tensor<2x64xf32>,
         tensor<4x1x64xf16>, tensor<4x1x64xf16>, tensor<4xi32>,
         tensor<20x1088xi8>, tensor<4x5xi32>)
        -> (tensor<20x1088xi8>, tensor<4x1x64xf16>, tensor<4x1x64xf16>)
  return %p, %a, %b : tensor<20x1088xi8>, tensor<4x1x64xf16>, tensor<4x1x64xf16>
}

func.func @append_dynamic(%k: tensor<?x?x?xf32>, %s: tensor<?x?xf32>,
    %tk: tensor<?x?x?xf32>, %ts: tensor<?x?xf32>, %len: tensor<?xi32>,
    %pages: tensor<?x?xi8>, %table: tensor<?x?xi32>)
    -> (tensor<?x?xi8>, tensor<?x?x?xf32>, tensor<?x?xf32>) {
  %p, %a, %b = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%len)
      into %pages block_table(%table)
      {pool_size = 4 : i64, page_entries = 64 : i64}
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>,
         tensor<?x?xf32>, tensor<?xi32>, tensor<?x?xi8>, tensor<?x?xi32>)
        -> (tensor<?x?xi8>, tensor<?x?x?xf32>, tensor<?x?xf32>)
  return %p, %a, %b : tensor<?x?xi8>, tensor<?x?x?xf32>, tensor<?x?xf32>
}
