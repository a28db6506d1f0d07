// select_paged and append_paged at the edges of their lengths on the CPU
// (docs/serving-layout.md): lengths 0, below P, P, a page's end and the
// table's end, with --verify and --check-bounds; then a page id outside the
// pages and lengths beyond the table, which indexpool-run refuses before the
// compiled code runs (the reference names them). Inputs/paged_edges.py
// writes the inputs.
// RUN: rm -rf %t && mkdir -p %t/select %t/select_bad %t/append %t/append_bad
// RUN: python3 %S/Inputs/paged_edges.py select %t/select
// RUN: python3 %S/Inputs/paged_edges.py select %t/select_bad bad
// RUN: python3 %S/Inputs/paged_edges.py append %t/append
// RUN: python3 %S/Inputs/paged_edges.py append %t/append_bad bad
// RUN: indexpool-run %s --function=select --input=@%t/select/q.npy --input=@%t/select/w.npy --input=@%t/select/pages.npy --input=@%t/select/table.npy --input=@%t/select/lengths.npy --verify --check-bounds --output=@%t/tokens.npy | FileCheck %s --check-prefix=SELECT
// RUN: not indexpool-run %s --function=select --input=@%t/select_bad/q.npy --input=@%t/select_bad/w.npy --input=@%t/select_bad/pages.npy --input=@%t/select_bad/table.npy --input=@%t/select_bad/lengths.npy --check-bounds 2>&1 | FileCheck %s --check-prefix=SELECT-BAD
// RUN: indexpool-run %s --function=append --input=@%t/append/keys.npy --input=@%t/append/scores.npy --input=@%t/append/tail_keys.npy --input=@%t/append/tail_scores.npy --input=@%t/append/lengths.npy --input=@%t/append/pages.npy --input=@%t/append/table.npy --verify --check-bounds | FileCheck %s --check-prefix=APPEND
// RUN: not indexpool-run %s --function=append --input=@%t/append_bad/keys.npy --input=@%t/append_bad/scores.npy --input=@%t/append_bad/tail_keys.npy --input=@%t/append_bad/tail_scores.npy --input=@%t/append_bad/lengths.npy --input=@%t/append_bad/pages.npy --input=@%t/append_bad/table.npy --verify 2>&1 | FileCheck %s --check-prefix=APPEND-BAD

// SELECT: result #0 (tensor<4x2x7xi32>): {{.*}} -> ok
// SELECT-BAD: error: indexpool.select_paged at {{.*}}: block_table[3, 1] = 9 is not a page id in [0, 6)
// APPEND-COUNT-3: -> ok
// APPEND-NOT: FAILED
// APPEND-BAD: error: indexpool.append_paged at {{.*}}: sequence 3 reaches 34 pooled entries, more than max_pages * E = 32

func.func @select(%q: tensor<4x2x2x64xf32>, %w: tensor<4x2x2xf32>,
    %pages: tensor<6x1088xi8>, %table: tensor<4x2xi32>,
    %len: tensor<4x2xi32>) -> tensor<4x2x7xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 1 : i64, pool_size = 4 : i64, page_entries = 16 : i64}
      : (tensor<4x2x2x64xf32>, tensor<4x2x2xf32>, tensor<6x1088xi8>,
         tensor<4x2xi32>, tensor<4x2xi32>) -> tensor<4x2x7xi32>
  return %t : tensor<4x2x7xi32>
}

func.func @append(%k: tensor<4x3x64xf32>, %s: tensor<4x3xf32>,
    %tk: tensor<4x3x64xf32>, %ts: tensor<4x3xf32>, %len: tensor<4xi32>,
    %pages: tensor<6x1088xi8>, %table: tensor<4x2xi32>)
    -> (tensor<6x1088xi8>, tensor<4x3x64xf32>, tensor<4x3xf32>) {
  %p, %a, %b = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%len)
      into %pages block_table(%table)
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate}
      : (tensor<4x3x64xf32>, tensor<4x3xf32>, tensor<4x3x64xf32>,
         tensor<4x3xf32>, tensor<4xi32>, tensor<6x1088xi8>, tensor<4x2xi32>)
        -> (tensor<6x1088xi8>, tensor<4x3x64xf32>, tensor<4x3xf32>)
  return %p, %a, %b : tensor<6x1088xi8>, tensor<4x3x64xf32>, tensor<4x3xf32>
}
