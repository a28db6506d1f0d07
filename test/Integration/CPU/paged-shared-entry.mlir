// append_paged when sequences that share a page complete the same entry in
// one step (docs/serving-layout.md): the later sequence's write wins, as in
// the float64 reference and the GPU kernels, whatever the threads' timing.
// Inputs/paged_shared_entry.py writes pairs of sequences in which the
// earlier sequence writes the shared entry after 511 other groups and the
// later one first: ten runs must all match the reference (--verify compares
// the pages entry by entry: the other sequence's codes are far off). Code
// that lets the threads race fails most runs on two cores.
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/paged_shared_entry.py %t
// RUN: for i in 1 2 3 4 5 6 7 8 9 10; do indexpool-run %s --function=append --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/tail_keys.npy --input=@%t/tail_scores.npy --input=@%t/lengths.npy --input=@%t/pages.npy --input=@%t/table.npy --verify; done > %t/runs.txt
// RUN: FileCheck %s < %t/runs.txt

// CHECK-COUNT-10: result #0 (tensor<128x1088xi8>): {{.*}} -> ok
// CHECK-NOT: FAILED

func.func @append(%k: tensor<4x2048x64xf32>, %s: tensor<4x2048xf32>,
    %tk: tensor<4x3x64xf32>, %ts: tensor<4x3xf32>, %len: tensor<4xi32>,
    %pages: tensor<128x1088xi8>, %table: tensor<4x64xi32>)
    -> tensor<128x1088xi8> {
  %p, %a, %b = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%len)
      into %pages block_table(%table)
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate}
      : (tensor<4x2048x64xf32>, tensor<4x2048xf32>, tensor<4x3x64xf32>,
         tensor<4x3xf32>, tensor<4xi32>, tensor<128x1088xi8>, tensor<4x64xi32>)
        -> (tensor<128x1088xi8>, tensor<4x3x64xf32>, tensor<4x3xf32>)
  return %p : tensor<128x1088xi8>
}
