// The paged forms on the CPU (docs/serving-layout.md). compress_paged writes,
// byte for byte, the dense compress of the same keys at each group's slot
// (codes, then the f32 scale at the production offsets; skipped slots and
// every other byte unchanged), checked by Inputs/check_pages.py on the
// compiled code's own outputs; and it matches the float64 reference.
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
