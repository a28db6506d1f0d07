// select_paged through a block table equals the dense select (docs/
// serving-layout.md): one sequence compressed into shuffled pages by
// compress_paged, then selected by select_paged over the pages and by
// select over the dense codes of the same keys, for two query rows of
// different lengths. Inputs/paged_vs_dense.py writes the inputs (the same
// queries in both shapes) and compares the tokens: the same scores, the same
// top k, the same expansion, and no tail (lengths are multiples of P).
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/paged_vs_dense.py make %t
// RUN: indexpool-run %s --function=both --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/pages.npy --input=@%t/slots.npy --input=@%t/table.npy --input=@%t/q3.npy --input=@%t/q4.npy --input=@%t/w2.npy --input=@%t/w3.npy --input=@%t/lengths.npy --input=@%t/valid.npy --output=@%t/paged.npy --output=@%t/dense.npy --verify | FileCheck %s --check-prefix=VERIFY
// RUN: python3 %S/Inputs/paged_vs_dense.py check %t/paged.npy %t/dense.npy | FileCheck %s

// VERIFY-COUNT-2: -> ok
// CHECK: paged == dense: 128 tokens in 2 rows

func.func @both(%keys: tensor<512x64xbf16>, %scores: tensor<512xf32>,
    %pages: tensor<10x1088xi8>, %slots: tensor<128xi64>,
    %table: tensor<1x8xi32>, %q3: tensor<2x4x64xbf16>,
    %q4: tensor<1x2x4x64xbf16>, %w2: tensor<2x4xf32>, %w3: tensor<1x2x4xf32>,
    %len: tensor<1x2xi32>, %valid: tensor<2xi32>)
    -> (tensor<1x2x67xi32>, tensor<2x64xi32>) {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate}
      : (tensor<512x64xbf16>, tensor<512xf32>, tensor<10x1088xi8>,
         tensor<128xi64>) -> tensor<10x1088xi8>
  %paged = indexpool.select_paged %q4, %w3 pages(%p) block_table(%table)
      lengths(%len) {k = 16 : i64, pool_size = 4 : i64, page_entries = 16 : i64}
      : (tensor<1x2x4x64xbf16>, tensor<1x2x4xf32>, tensor<10x1088xi8>,
         tensor<1x8xi32>, tensor<1x2xi32>) -> tensor<1x2x67xi32>
  %codes, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<512x64xbf16>, tensor<512xf32>)
        -> (tensor<128x64xf8E4M3FN>, tensor<128xf32>, tensor<128x4xf32>)
  %dense = indexpool.select %q3, %w2, %codes scales(%s) valid(%valid)
      {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<2x4x64xbf16>, tensor<2x4xf32>, tensor<128x64xf8E4M3FN>,
         tensor<128xf32>, tensor<2xi32>) -> tensor<2x64xi32>
  return %paged, %dense : tensor<1x2x67xi32>, tensor<2x64xi32>
}
