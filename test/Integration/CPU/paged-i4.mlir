// i4 codes in the paged layout (docs/serving-layout.md): codes in
// [-7, 7] two a byte (code 2i in the low nibble of byte i), an entry D / 2
// bytes and its f32 scale. compress_paged, append_paged, select_paged and
// refine_paged on fresh random inputs match the float64 reference
// (--verify), with a D that is a multiple of the vector width (128) and
// one that is not (36: a masked tail chunk), scales last and first.
// RUN: indexpool-run %s --function=compress --random-inputs=41 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=compress_tail --random-inputs=42 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=compress_dynamic --random-inputs=43 --input-shape=0:203x36 --input-shape=1:203x36 --input-shape=2:7x352 --input-shape=3:50 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select --random-inputs=44 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_tail --random-inputs=45 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=append --random-inputs=46 --verify --check-bounds | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=append_tail --random-inputs=47 --verify --check-bounds | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=refine --random-inputs=48 --verify --check-bounds | FileCheck %s --check-prefix=ONE

// ONE: result #0 {{.*}} -> ok
// THREE-COUNT-3: -> ok
// THREE-NOT: FAILED

// An odd D has no i4 layout: refused at run time when D is dynamic.
// RUN: not indexpool-run %s --function=compress_dynamic --random-inputs=49 --input-shape=0:203x35 --input-shape=1:203x35 --input-shape=2:7x352 --input-shape=3:50 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: D must be even for i4 codes (two a byte), got 35
// ODD-NOT: Assertion
// Pages sized for D code bytes an entry (i8's) are not i4 pages.
// RUN: not indexpool-run %s --function=compress_dynamic --random-inputs=50 --input-shape=0:203x36 --input-shape=1:203x36 --input-shape=2:7x640 --input-shape=3:50 2>&1 | FileCheck %s --check-prefix=WIDTH
// WIDTH: pages must be [pages, E * (D / 2 + 4)] = [pages, 352] of i8, got [7, 640] of i8

// The GPU kernels in the emulator (D = 128: the warp rows' 16-byte chunks):
// compress and append pack each lane's codes two a byte, select and refine
// decode them on the CUDA cores (no tensor-core path for i4).
// RUN: indexpool-run %s --function=compress --random-inputs=51 --verify --device=gpu-emulator --chip=sm_90 | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select --random-inputs=52 --verify --check-bounds --device=gpu-emulator --chip=sm_90 | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select --random-inputs=53 --verify --device=gpu-emulator --chip=sm_80 | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=append --random-inputs=54 --verify --check-bounds --device=gpu-emulator --chip=sm_89 | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=refine_gpu --random-inputs=55 --verify --check-bounds --device=gpu-emulator --chip=sm_90 | FileCheck %s --check-prefix=ONE

// D = 128, E = 64: 64 * (64 + 4) = 4352 bytes a page.
func.func @compress(%keys: tensor<1027x128xbf16>, %scores: tensor<1027xf32>,
    %pages: tensor<8x4352xi8>, %slots: tensor<256xi64>) -> tensor<8x4352xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, rotate, codes = i4}
      : (tensor<1027x128xbf16>, tensor<1027xf32>, tensor<8x4352xi8>,
         tensor<256xi64>) -> tensor<8x4352xi8>
  return %p : tensor<8x4352xi8>
}

// D = 36, E = 16, scales first, per-channel scores with a bias, pow2 scales:
// 16 * (18 + 4) = 352 bytes a page.
func.func @compress_tail(%keys: tensor<400x36xf16>, %scores: tensor<400x36xf16>,
    %b: tensor<2x36xf32>, %pages: tensor<20x352xi8>, %slots: tensor<200xi64>)
    -> tensor<20x352xi8> {
  %p = indexpool.compress_paged %keys, %scores bias(%b) into %pages at %slots
      {pool_size = 2 : i64, page_entries = 16 : i64, codes = i4, scales_first,
       pow2_scale}
      : (tensor<400x36xf16>, tensor<400x36xf16>, tensor<2x36xf32>,
         tensor<20x352xi8>, tensor<200xi64>) -> tensor<20x352xi8>
  return %p : tensor<20x352xi8>
}

func.func @compress_dynamic(%keys: tensor<?x?xf32>, %scores: tensor<?x?xf32>,
    %pages: tensor<?x?xi8>, %slots: tensor<?xi64>) -> tensor<?x?xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, page_entries = 16 : i64, codes = i4}
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xi64>)
        -> tensor<?x?xi8>
  return %p : tensor<?x?xi8>
}

func.func @select(%q: tensor<3x2x4x128xbf16>, %w: tensor<3x2x4xf32>,
    %pages: tensor<16x4352xi8>, %table: tensor<3x4xi32>,
    %len: tensor<3x2xi32>) -> tensor<3x2x35xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 8 : i64, pool_size = 4 : i64, codes = i4}
      : (tensor<3x2x4x128xbf16>, tensor<3x2x4xf32>, tensor<16x4352xi8>,
         tensor<3x4xi32>, tensor<3x2xi32>) -> tensor<3x2x35xi32>
  return %t : tensor<3x2x35xi32>
}

func.func @select_tail(%q: tensor<4x2x8x36xf16>, %w: tensor<4x2x8xf32>,
    %pages: tensor<20x352xi8>, %table: tensor<4x5xi32>,
    %len: tensor<4x2xi32>) -> tensor<4x2x13xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len)
      {k = 6 : i64, pool_size = 2 : i64, page_entries = 16 : i64, codes = i4,
       scales_first}
      : (tensor<4x2x8x36xf16>, tensor<4x2x8xf32>, tensor<20x352xi8>,
         tensor<4x5xi32>, tensor<4x2xi32>) -> tensor<4x2x13xi32>
  return %t : tensor<4x2x13xi32>
}

func.func @append(%k: tensor<3x5x128xbf16>, %s: tensor<3x5xf32>,
    %tk: tensor<3x3x128xbf16>, %ts: tensor<3x3xf32>, %len: tensor<3xi32>,
    %pages: tensor<16x4352xi8>, %table: tensor<3x4xi32>)
    -> (tensor<16x4352xi8>, tensor<3x3x128xbf16>, tensor<3x3xf32>) {
  %p, %a, %b = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%len)
      into %pages block_table(%table)
      {pool_size = 4 : i64, rotate, pow2_scale, codes = i4}
      : (tensor<3x5x128xbf16>, tensor<3x5xf32>, tensor<3x3x128xbf16>,
         tensor<3x3xf32>, tensor<3xi32>, tensor<16x4352xi8>, tensor<3x4xi32>)
        -> (tensor<16x4352xi8>, tensor<3x3x128xbf16>, tensor<3x3xf32>)
  return %p, %a, %b : tensor<16x4352xi8>, tensor<3x3x128xbf16>, tensor<3x3xf32>
}

func.func @append_tail(%k: tensor<4x3x36xf16>, %s: tensor<4x3x36xf16>,
    %b: tensor<2x36xf32>, %tk: tensor<4x1x36xf16>, %ts: tensor<4x1x36xf16>,
    %len: tensor<4xi32>, %pages: tensor<20x352xi8>, %table: tensor<4x5xi32>)
    -> (tensor<20x352xi8>, tensor<4x1x36xf16>, tensor<4x1x36xf16>) {
  %p, %a, %c = indexpool.append_paged %k, %s bias(%b) tail(%tk, %ts)
      lengths(%len) into %pages block_table(%table)
      {pool_size = 2 : i64, page_entries = 16 : i64, codes = i4, scales_first}
      : (tensor<4x3x36xf16>, tensor<4x3x36xf16>, tensor<2x36xf32>,
         tensor<4x1x36xf16>, tensor<4x1x36xf16>, tensor<4xi32>,
         tensor<20x352xi8>, tensor<4x5xi32>)
        -> (tensor<20x352xi8>, tensor<4x1x36xf16>, tensor<4x1x36xf16>)
  return %p, %a, %c : tensor<20x352xi8>, tensor<4x1x36xf16>, tensor<4x1x36xf16>
}

// A token tier of i4 codes: 16 entries of D = 36 a page.
func.func @refine(%q: tensor<2x2x16x36xbf16>, %w: tensor<2x2x16xf32>,
    %cand: tensor<2x2x24xi32>, %tier: tensor<12x352xi8>,
    %table: tensor<2x6xi32>, %len: tensor<2x2xi32>) -> tensor<2x2x8xi32> {
  %t = indexpool.refine_paged %q, %w, %cand pages(%tier) block_table(%table)
      lengths(%len) {k = 8 : i64, page_entries = 16 : i64, codes = i4}
      : (tensor<2x2x16x36xbf16>, tensor<2x2x16xf32>, tensor<2x2x24xi32>,
         tensor<12x352xi8>, tensor<2x6xi32>, tensor<2x2xi32>)
        -> tensor<2x2x8xi32>
  return %t : tensor<2x2x8xi32>
}

// A token tier of i4 codes on the GPU: 16 entries of D = 64 a page.
func.func @refine_gpu(%q: tensor<2x2x16x64xbf16>, %w: tensor<2x2x16xf32>,
    %cand: tensor<2x2x24xi32>, %tier: tensor<12x576xi8>,
    %table: tensor<2x6xi32>, %len: tensor<2x2xi32>) -> tensor<2x2x8xi32> {
  %t = indexpool.refine_paged %q, %w, %cand pages(%tier) block_table(%table)
      lengths(%len) {k = 8 : i64, page_entries = 16 : i64, codes = i4}
      : (tensor<2x2x16x64xbf16>, tensor<2x2x16xf32>, tensor<2x2x24xi32>,
         tensor<12x576xi8>, tensor<2x6xi32>, tensor<2x2xi32>)
        -> tensor<2x2x8xi32>
  return %t : tensor<2x2x8xi32>
}
