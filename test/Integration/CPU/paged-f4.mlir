// FP4 E2M1 codes (codes = f4E2M1FN, MLIR's builtin type) in the paged
// layout (docs/serving-layout.md): the magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6
// with a sign bit, two a byte (code 2i in the low nibble of byte i), an
// entry D / 2 bytes and its f32 scale (absmax / 6). compress_paged,
// append_paged, select_paged and refine_paged on fresh random inputs match
// the float64 reference (--verify) on the CPU, with a D that is a multiple
// of the vector width (128) and one that is not (36: a masked tail chunk),
// scales last and first.
// RUN: indexpool-run %s --function=compress --random-inputs=61 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=compress_tail --random-inputs=62 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=compress_dynamic --random-inputs=63 --input-shape=0:203x36 --input-shape=1:203x36 --input-shape=2:7x352 --input-shape=3:50 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select --random-inputs=64 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_tail --random-inputs=65 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=append --random-inputs=66 --verify --check-bounds | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=append_tail --random-inputs=67 --verify --check-bounds | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=refine --random-inputs=68 --verify --check-bounds | FileCheck %s --check-prefix=ONE

// ONE: result #0 {{.*}} -> ok
// THREE-COUNT-3: -> ok
// THREE-NOT: FAILED

// An odd D has no packed layout: refused at run time when D is dynamic.
// RUN: not indexpool-run %s --function=compress_dynamic --random-inputs=69 --input-shape=0:203x35 --input-shape=1:203x35 --input-shape=2:7x352 --input-shape=3:50 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: D must be even for f4E2M1FN codes (two a byte), got 35
// ODD-NOT: Assertion

// Rounding ties, saturation and a NaN row, on the CPU and in the emulator:
// the bytes of the pages against codes derived by hand (Inputs/f4_ties.py).
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/f4_ties.py write %t
// RUN: indexpool-run %s --function=compress_ties --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/pages.npy --input=@%t/slots.npy --verify --output=@%t/cpu.npy | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/Inputs/f4_ties.py check %t/cpu.npy | FileCheck %s --check-prefix=TIES
// RUN: indexpool-run %s --function=compress_ties --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/pages.npy --input=@%t/slots.npy --device=gpu-emulator --chip=sm_90 --output=@%t/gpu.npy
// RUN: python3 %S/Inputs/f4_ties.py check %t/gpu.npy | FileCheck %s --check-prefix=TIES
// TIES: ties ok

// The GPU kernels in the emulator (D = 128: the warp rows' 16-byte chunks)
// on every chip family: compress and append pack each lane's codes two a
// byte, select and refine decode them on the CUDA cores.
// RUN: indexpool-run %s --function=compress --random-inputs=71 --verify --device=gpu-emulator --chip=sm_80 | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select --random-inputs=72 --verify --check-bounds --device=gpu-emulator --chip=sm_90 | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=append --random-inputs=73 --verify --check-bounds --device=gpu-emulator --chip=sm_100 | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=refine_gpu --random-inputs=74 --verify --check-bounds --device=gpu-emulator --chip=sm_120 | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select --random-inputs=75 --verify --device=gpu-emulator --chip=sm_120 | FileCheck %s --check-prefix=ONE

// pool_size = 1: each entry is its key row, quantized.
func.func @compress_ties(%keys: tensor<4x16xf32>, %scores: tensor<4xf32>,
    %pages: tensor<1x48xi8>, %slots: tensor<4xi64>) -> tensor<1x48xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 1 : i64, page_entries = 4 : i64, codes = f4E2M1FN}
      : (tensor<4x16xf32>, tensor<4xf32>, tensor<1x48xi8>, tensor<4xi64>)
        -> tensor<1x48xi8>
  return %p : tensor<1x48xi8>
}

// D = 128, E = 64: 64 * (64 + 4) = 4352 bytes a page.
func.func @compress(%keys: tensor<1027x128xbf16>, %scores: tensor<1027xf32>,
    %pages: tensor<8x4352xi8>, %slots: tensor<256xi64>) -> tensor<8x4352xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, rotate, codes = f4E2M1FN}
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
      {pool_size = 2 : i64, page_entries = 16 : i64, codes = f4E2M1FN, scales_first,
       pow2_scale}
      : (tensor<400x36xf16>, tensor<400x36xf16>, tensor<2x36xf32>,
         tensor<20x352xi8>, tensor<200xi64>) -> tensor<20x352xi8>
  return %p : tensor<20x352xi8>
}

func.func @compress_dynamic(%keys: tensor<?x?xf32>, %scores: tensor<?x?xf32>,
    %pages: tensor<?x?xi8>, %slots: tensor<?xi64>) -> tensor<?x?xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, page_entries = 16 : i64, codes = f4E2M1FN}
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xi64>)
        -> tensor<?x?xi8>
  return %p : tensor<?x?xi8>
}

func.func @select(%q: tensor<3x2x4x128xbf16>, %w: tensor<3x2x4xf32>,
    %pages: tensor<16x4352xi8>, %table: tensor<3x4xi32>,
    %len: tensor<3x2xi32>) -> tensor<3x2x35xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 8 : i64, pool_size = 4 : i64, codes = f4E2M1FN}
      : (tensor<3x2x4x128xbf16>, tensor<3x2x4xf32>, tensor<16x4352xi8>,
         tensor<3x4xi32>, tensor<3x2xi32>) -> tensor<3x2x35xi32>
  return %t : tensor<3x2x35xi32>
}

func.func @select_tail(%q: tensor<4x2x8x36xf16>, %w: tensor<4x2x8xf32>,
    %pages: tensor<20x352xi8>, %table: tensor<4x5xi32>,
    %len: tensor<4x2xi32>) -> tensor<4x2x13xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len)
      {k = 6 : i64, pool_size = 2 : i64, page_entries = 16 : i64, codes = f4E2M1FN,
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
      {pool_size = 4 : i64, rotate, pow2_scale, codes = f4E2M1FN}
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
      {pool_size = 2 : i64, page_entries = 16 : i64, codes = f4E2M1FN, scales_first}
      : (tensor<4x3x36xf16>, tensor<4x3x36xf16>, tensor<2x36xf32>,
         tensor<4x1x36xf16>, tensor<4x1x36xf16>, tensor<4xi32>,
         tensor<20x352xi8>, tensor<4x5xi32>)
        -> (tensor<20x352xi8>, tensor<4x1x36xf16>, tensor<4x1x36xf16>)
  return %p, %a, %c : tensor<20x352xi8>, tensor<4x1x36xf16>, tensor<4x1x36xf16>
}

// A token tier of f4E2M1FN codes: 16 entries of D = 36 a page.
func.func @refine(%q: tensor<2x2x16x36xbf16>, %w: tensor<2x2x16xf32>,
    %cand: tensor<2x2x24xi32>, %tier: tensor<12x352xi8>,
    %table: tensor<2x6xi32>, %len: tensor<2x2xi32>) -> tensor<2x2x8xi32> {
  %t = indexpool.refine_paged %q, %w, %cand pages(%tier) block_table(%table)
      lengths(%len) {k = 8 : i64, page_entries = 16 : i64, codes = f4E2M1FN}
      : (tensor<2x2x16x36xbf16>, tensor<2x2x16xf32>, tensor<2x2x24xi32>,
         tensor<12x352xi8>, tensor<2x6xi32>, tensor<2x2xi32>)
        -> tensor<2x2x8xi32>
  return %t : tensor<2x2x8xi32>
}

// A token tier of f4E2M1FN codes on the GPU: 16 entries of D = 64 a page.
func.func @refine_gpu(%q: tensor<2x2x16x64xbf16>, %w: tensor<2x2x16xf32>,
    %cand: tensor<2x2x24xi32>, %tier: tensor<12x576xi8>,
    %table: tensor<2x6xi32>, %len: tensor<2x2xi32>) -> tensor<2x2x8xi32> {
  %t = indexpool.refine_paged %q, %w, %cand pages(%tier) block_table(%table)
      lengths(%len) {k = 8 : i64, page_entries = 16 : i64, codes = f4E2M1FN}
      : (tensor<2x2x16x64xbf16>, tensor<2x2x16xf32>, tensor<2x2x24xi32>,
         tensor<12x576xi8>, tensor<2x6xi32>, tensor<2x2xi32>)
        -> tensor<2x2x8xi32>
  return %t : tensor<2x2x8xi32>
}
