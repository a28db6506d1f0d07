// The GPU kernels of the paged ops (docs/serving-layout.md) in the GPU
// emulator, against the float64 reference: compress_paged, select_paged and
// append_paged with f8E4M3FN and i8 codes, scales first, on sm_80 (the
// integer FP8 encoder) and sm_90 (e4m3x2), with the functions of the CPU
// tests (random inputs: shuffled block tables that share pages, negative
// slots, lengths from 0 to the table's end) and dynamic sizes below. The
// pages compress_paged writes are checked byte for byte against the dense
// compress too.
// RUN: rm -rf %t && mkdir -p %t/select %t/select_bad %t/append %t/append_bad %t/chain
// RUN: indexpool-run %S/../CPU/paged.mlir --function=both --random-inputs=5 --device=gpu-emulator --chip=sm_90 --output=@%t/out.npy --output=@%t/codes.npy --output=@%t/scales.npy --output=@%t/in.npy --output=@%t/slots.npy --verify | FileCheck %s --check-prefix=FIVE
// RUN: python3 %S/../CPU/Inputs/check_pages.py 64 128 %t/out.npy %t/codes.npy %t/scales.npy %t/in.npy %t/slots.npy | FileCheck %s --check-prefix=PAGES
// RUN: indexpool-run %S/../CPU/paged.mlir --function=i8_scales_first --random-inputs=6 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=i8_scales_first --random-inputs=7 --device=gpu-emulator --chip=sm_90 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=compress_dynamic --random-inputs=8 --input-shape=0:203x64 --input-shape=1:203x64 --input-shape=2:5x1088 --input-shape=3:50 --device=gpu-emulator --chip=sm_80 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=select --random-inputs=11 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=select --random-inputs=12 --device=gpu-emulator --chip=sm_90 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=select_i8 --random-inputs=13 --device=gpu-emulator --chip=sm_80 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=select_i8 --random-inputs=14 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=select_dynamic --random-inputs=15 --input-shape=0:5x2x4x64 --input-shape=1:5x2x4 --input-shape=2:9x2176 --input-shape=3:5x3 --input-shape=4:5x2 --device=gpu-emulator --chip=sm_90 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=append --random-inputs=16 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=append --random-inputs=17 --device=gpu-emulator --chip=sm_90 --verify --check-bounds | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=append_i8 --random-inputs=18 --device=gpu-emulator --chip=sm_80 --verify --check-bounds | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=append_i8 --random-inputs=19 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=append_dynamic --random-inputs=20 --input-shape=0:6x5x64 --input-shape=1:6x5x64 --input-shape=2:6x3x64 --input-shape=3:6x3x64 --input-shape=4:6 --input-shape=5:13x4352 --input-shape=6:6x2 --device=gpu-emulator --chip=sm_90 --verify --check-bounds | FileCheck %s --check-prefix=THREE

// FIVE-COUNT-5: -> ok
// FIVE-NOT: FAILED
// PAGES: pages ok: {{[1-9][0-9]*}} groups written, {{[1-9][0-9]*}} skipped
// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED
// THREE-COUNT-3: -> ok
// THREE-NOT: FAILED

// The edges of the lengths (0, below P, P, a page's end, the table's end;
// a block table listing a page twice, whose shared entry the later
// sequence's append writes, as the reference appends sequences in order),
// the inputs of CPU/paged-edges.mlir.
// RUN: python3 %S/../CPU/Inputs/paged_edges.py select %t/select
// RUN: python3 %S/../CPU/Inputs/paged_edges.py select %t/select_bad bad
// RUN: python3 %S/../CPU/Inputs/paged_edges.py append %t/append
// RUN: python3 %S/../CPU/Inputs/paged_edges.py append %t/append_bad bad
// RUN: indexpool-run %S/../CPU/paged-edges.mlir --function=select --input=@%t/select/q.npy --input=@%t/select/w.npy --input=@%t/select/pages.npy --input=@%t/select/table.npy --input=@%t/select/lengths.npy --device=gpu-emulator --chip=sm_90 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged-edges.mlir --function=append --input=@%t/append/keys.npy --input=@%t/append/scores.npy --input=@%t/append/tail_keys.npy --input=@%t/append/tail_scores.npy --input=@%t/append/lengths.npy --input=@%t/append/pages.npy --input=@%t/append/table.npy --device=gpu-emulator --chip=sm_80 --verify --check-bounds | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/../CPU/paged-edges.mlir --function=append --input=@%t/append/keys.npy --input=@%t/append/scores.npy --input=@%t/append/tail_keys.npy --input=@%t/append/tail_scores.npy --input=@%t/append/lengths.npy --input=@%t/append/pages.npy --input=@%t/append/table.npy --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=THREE

// Bad inputs: the CPU's one-line errors, before any kernel runs (a page id
// outside the pages, a negative one, a length beyond the table, a slot
// beyond the pages).
// RUN: python3 -c "import sys; sys.path.insert(0, '%S/../../../scripts'); from npyio import write_npy; write_npy('%t/negative_table.npy', '<i4', (4, 2), [1, 4, -1, 5, 2, 3, 5, 2]); write_npy('%t/long_lengths.npy', '<i4', (4, 2), [0, 1, 3, 4, 5, 64, 67, 132]); write_npy('%t/slots.npy', '<i8', (4,), [0, 5, 96, -1])"
// RUN: not indexpool-run %S/../CPU/paged-edges.mlir --function=select --input=@%t/select_bad/q.npy --input=@%t/select_bad/w.npy --input=@%t/select_bad/pages.npy --input=@%t/select_bad/table.npy --input=@%t/select_bad/lengths.npy --device=gpu-emulator --chip=sm_90 2>&1 | FileCheck %s --check-prefix=PAGE-ID
// RUN: not indexpool-run %S/../CPU/paged-edges.mlir --function=select --input=@%t/select/q.npy --input=@%t/select/w.npy --input=@%t/select/pages.npy --input=@%t/negative_table.npy --input=@%t/select/lengths.npy --device=cpu 2>&1 | FileCheck %s --check-prefix=NEGATIVE-ID
// RUN: not indexpool-run %S/../CPU/paged-edges.mlir --function=select --input=@%t/select/q.npy --input=@%t/select/w.npy --input=@%t/select/pages.npy --input=@%t/negative_table.npy --input=@%t/select/lengths.npy --device=gpu-emulator --chip=sm_80 2>&1 | FileCheck %s --check-prefix=NEGATIVE-ID
// RUN: not indexpool-run %S/../CPU/paged-edges.mlir --function=select --input=@%t/select/q.npy --input=@%t/select/w.npy --input=@%t/select/pages.npy --input=@%t/select/table.npy --input=@%t/long_lengths.npy --device=cpu 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not indexpool-run %S/../CPU/paged-edges.mlir --function=select --input=@%t/select/q.npy --input=@%t/select/w.npy --input=@%t/select/pages.npy --input=@%t/select/table.npy --input=@%t/long_lengths.npy --device=gpu-emulator --chip=sm_90 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not indexpool-run %S/../CPU/paged-edges.mlir --function=append --input=@%t/append_bad/keys.npy --input=@%t/append_bad/scores.npy --input=@%t/append_bad/tail_keys.npy --input=@%t/append_bad/tail_scores.npy --input=@%t/append_bad/lengths.npy --input=@%t/append_bad/pages.npy --input=@%t/append_bad/table.npy --device=gpu-emulator --chip=sm_90 --verify 2>&1 | FileCheck %s --check-prefix=APPEND-BAD
// RUN: not indexpool-run %s --function=compress_small --input=@%t/select/pages.npy --input=@%t/slots.npy --device=cpu 2>&1 | FileCheck %s --check-prefix=SLOT
// RUN: not indexpool-run %s --function=compress_small --input=@%t/select/pages.npy --input=@%t/slots.npy --device=gpu-emulator --chip=sm_90 2>&1 | FileCheck %s --check-prefix=SLOT

// PAGE-ID: error: indexpool.select_paged at {{.*}}: block_table[3, 1] = 9 is not a page id in [0, 6)
// PAGE-ID-NOT: error
// NEGATIVE-ID: error: indexpool.select_paged at {{.*}}: block_table[1, 0] = -1 is not a page id in [0, 6)
// NEGATIVE-ID-NOT: error
// LONG: error: indexpool.select_paged at {{.*}}: the length 132 of query row (3, 1) needs 33 pooled entries, more than max_pages * E = 32
// LONG-NOT: error
// APPEND-BAD: error: indexpool.append_paged at {{.*}}: sequence 3 reaches 34 pooled entries, more than max_pages * E = 32
// APPEND-BAD-NOT: error
// SLOT: error: indexpool.compress_paged at {{.*}}: slot 96 of group 2 is outside the pages (6 pages of 16 entries)
// SLOT-NOT: error

// A decode loop: prefill, six appends of 1 and 3 tokens, byte-identical to
// one compress_paged of the whole sequences (the inputs and the check of
// CPU/decode-chain.mlir).
// RUN: python3 %S/../CPU/Inputs/decode_chain.py make %t/chain
// RUN: indexpool-run %S/../CPU/decode-chain.mlir --function=chain --input=@%t/chain/keys.npy --input=@%t/chain/scores.npy --input=@%t/chain/pages.npy --input=@%t/chain/table.npy --input=@%t/chain/whole_slots.npy --input=@%t/chain/prefill_slots.npy --input=@%t/chain/tail_keys.npy --input=@%t/chain/tail_scores.npy --input=@%t/chain/len0.npy --input=@%t/chain/keys0.npy --input=@%t/chain/scores0.npy --input=@%t/chain/len1.npy --input=@%t/chain/keys1.npy --input=@%t/chain/scores1.npy --input=@%t/chain/len2.npy --input=@%t/chain/keys2.npy --input=@%t/chain/scores2.npy --input=@%t/chain/len3.npy --input=@%t/chain/keys3.npy --input=@%t/chain/scores3.npy --input=@%t/chain/len4.npy --input=@%t/chain/keys4.npy --input=@%t/chain/scores4.npy --input=@%t/chain/len5.npy --input=@%t/chain/keys5.npy --input=@%t/chain/scores5.npy --output=@%t/chain/chain.npy --output=@%t/chain/whole.npy --output=@%t/chain/tail_keys_out.npy --output=@%t/chain/tail_scores_out.npy --device=gpu-emulator --chip=sm_90 --verify --check-bounds | FileCheck %s --check-prefix=FOUR
// RUN: python3 %S/../CPU/Inputs/decode_chain.py check %t/chain/chain.npy %t/chain/whole.npy | FileCheck %s --check-prefix=SAME

// FOUR-COUNT-4: -> ok
// FOUR-NOT: FAILED
// SAME: pages identical: 19584 bytes

// The kernels need a static D (and H): other shapes are refused in one
// line, not run as CPU loops.
// RUN: not indexpool-run %S/../CPU/paged.mlir --function=select_dynamic --random-inputs=1 --input-shape=0:5x2x3x96 --input-shape=1:5x2x3 --input-shape=2:9x3200 --input-shape=3:5x3 --input-shape=4:5x2 --device=gpu-emulator --chip=sm_90 2>&1 | FileCheck %s --check-prefix=SHAPES
// SHAPES: error: 'indexpool.select_paged' has no GPU kernel for these shapes: H or D dynamic, H > 128, D not made of 16-byte chunks, or the query beyond 48 KiB

// Every size but D (and H) dynamic.
func.func @compress_dynamic(%keys: tensor<?x64xbf16>, %scores: tensor<?x64xbf16>,
    %pages: tensor<?x?xi8>, %slots: tensor<?xi64>) -> tensor<?x?xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
      : (tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?x?xi8>, tensor<?xi64>)
        -> tensor<?x?xi8>
  return %p : tensor<?x?xi8>
}

func.func @select_dynamic(%q: tensor<?x?x4x64xf32>, %w: tensor<?x?x4xf32>,
    %pages: tensor<?x?xi8>, %table: tensor<?x?xi32>, %len: tensor<?x?xi32>)
    -> tensor<?x?x?xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len)
      {k = 5 : i64, pool_size = 4 : i64, page_entries = 32 : i64, codes = i8,
       scales_first}
      : (tensor<?x?x4x64xf32>, tensor<?x?x4xf32>, tensor<?x?xi8>,
         tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<?x?x?xi32>
  return %t : tensor<?x?x?xi32>
}

func.func @append_dynamic(%k: tensor<?x?x64xf16>, %s: tensor<?x?x64xf16>,
    %tk: tensor<?x?x64xf16>, %ts: tensor<?x?x64xf16>, %len: tensor<?xi32>,
    %pages: tensor<?x?xi8>, %table: tensor<?x?xi32>)
    -> (tensor<?x?xi8>, tensor<?x?x64xf16>, tensor<?x?x64xf16>) {
  %p, %a, %b = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%len)
      into %pages block_table(%table)
      {pool_size = 4 : i64, page_entries = 64 : i64, rotate}
      : (tensor<?x?x64xf16>, tensor<?x?x64xf16>, tensor<?x?x64xf16>,
         tensor<?x?x64xf16>, tensor<?xi32>, tensor<?x?xi8>, tensor<?x?xi32>)
        -> (tensor<?x?xi8>, tensor<?x?x64xf16>, tensor<?x?x64xf16>)
  return %p, %a, %b : tensor<?x?xi8>, tensor<?x?x64xf16>, tensor<?x?x64xf16>
}

// 16 keys, 4 groups into pages of 16 entries of D = 64 (the pages of
// CPU/paged-edges.mlir).
func.func @compress_small(%pages: tensor<6x1088xi8>, %slots: tensor<4xi64>)
    -> tensor<6x1088xi8> {
  %keys = arith.constant dense<1.0> : tensor<16x64xf32>
  %scores = arith.constant dense<0.0> : tensor<16xf32>
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, page_entries = 16 : i64}
      : (tensor<16x64xf32>, tensor<16xf32>, tensor<6x1088xi8>, tensor<4xi64>)
        -> tensor<6x1088xi8>
  return %p : tensor<6x1088xi8>
}
