// The token tier of a two-stage selection on the paged layout
// (docs/serving-layout.md, "The token tier"): compress_paged with
// pool_size = 1 writes one entry per token, refine_paged re-scores
// select_paged's candidates there. Every result is checked against the
// float64 reference (--verify), on the CPU and in the GPU emulator.
//
// The whole pipeline on one sequence: pooled pages (P = 4, E = 32) and the
// token tier (E = 128, the same 4 pages) written by a prefill of 512 keys,
// then select_paged keeps 32 pools (128 candidates and the tail token) and
// refine_paged the 32 best tokens of them; beside it, the one-stage
// selection of 8 pools (32 tokens) and the token-level top 32 on the tier
// (select_paged with pool_size = 1).
// DEFINE: %{inputs} = --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/pools.npy --input=@%t/slots.npy --input=@%t/tier.npy --input=@%t/tslots.npy --input=@%t/q.npy --input=@%t/w.npy --input=@%t/table.npy --input=@%t/len.npy
// RUN: rm -rf %t && /usr/bin/python3 %S/Inputs/token_tier_inputs.py %t --all-candidates
// RUN: indexpool-run %s --function=two_stage %{inputs} --verify --output=@%t/refined.npy --output=@%t/pooled.npy --output=@%t/exact.npy | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=two_stage %{inputs} --verify --device=gpu-emulator --chip=sm_90 | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=two_stage %{inputs} --verify --device=gpu-emulator --chip=sm_80 --tensor-cores=false | FileCheck %s --check-prefix=THREE
// Refining 4x the pools keeps more of the token-level top 32 than pooling
// alone at the same 32 tokens (both against select_paged over the tier).
// RUN: /usr/bin/python3 %S/Inputs/recall.py %t/exact.npy %t/refined.npy %t/pooled.npy | FileCheck %s --check-prefix=RECALL
//
// refine_paged over every token of a row (candidates [0, L), then -1) is
// select_paged over the tier with pool_size = 1, bit for bit (ties to the
// smaller token either way), on the CPU and on the tensor cores.
// RUN: indexpool-run %s --function=every_token --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/tier.npy --input=@%t/tslots.npy --input=@%t/q.npy --input=@%t/w.npy --input=@%t/table.npy --input=@%t/len.npy --input=@%t/all.npy --verify --output=@%t/refine.npy --output=@%t/select.npy | FileCheck %s --check-prefix=TWO
// RUN: cmp %t/refine.npy %t/select.npy
// RUN: indexpool-run %s --function=every_token --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/tier.npy --input=@%t/tslots.npy --input=@%t/q.npy --input=@%t/w.npy --input=@%t/table.npy --input=@%t/len.npy --input=@%t/all.npy --device=gpu-emulator --chip=sm_90 --output=@%t/refine-gpu.npy --output=@%t/select-gpu.npy
// RUN: cmp %t/refine-gpu.npy %t/select-gpu.npy
//
// refine_paged alone on random inputs (random page bytes, candidates with
// padding and tokens beyond a row's length, duplicates): f8 codes, i8
// codes with the scales first and an FP8 query, two query rows each.
// RUN: indexpool-run %s --function=refine_f8 --random-inputs=1 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=refine_i8 --random-inputs=2 --verify --check-bounds | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=refine_f8 --random-inputs=3 --verify --check-bounds --device=gpu-emulator --chip=sm_89 | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=refine_i8 --random-inputs=4 --verify --check-bounds --device=gpu-emulator --chip=sm_90 | FileCheck %s --check-prefix=ONE
//
// The writers with pool_size = 1 on random inputs: compress_paged, and
// append_paged with its empty tails (P - 1 = 0 rows).
// RUN: indexpool-run %s --function=tier_prefill --random-inputs=5 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=tier_append --random-inputs=6 --verify | FileCheck %s --check-prefix=APPEND
// RUN: indexpool-run %s --function=tier_append --random-inputs=7 --verify --device=gpu-emulator --chip=sm_90 | FileCheck %s --check-prefix=APPEND

// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED
// TWO-COUNT-2: result #{{[01]}} {{.*}} -> ok
// TWO-NOT: FAILED
// THREE-COUNT-3: result #{{[012]}} {{.*}} -> ok
// THREE-NOT: FAILED
// APPEND-COUNT-3: result #{{[012]}} {{.*}} -> ok
// RECALL: recall

func.func @two_stage(%keys: tensor<512x64xbf16>, %scores: tensor<512xf32>,
    %pools0: tensor<4x2176xi8>, %slots: tensor<128xi64>,
    %tier0: tensor<4x8704xi8>, %tslots: tensor<512xi64>,
    %q: tensor<1x1x16x64xbf16>, %w: tensor<1x1x16xf32>,
    %table: tensor<1x4xi32>, %len: tensor<1x1xi32>)
    -> (tensor<1x1x32xi32>, tensor<1x1x35xi32>, tensor<1x1x32xi32>) {
  %pools = indexpool.compress_paged %keys, %scores into %pools0 at %slots
      {pool_size = 4 : i64, page_entries = 32 : i64, rotate}
      : (tensor<512x64xbf16>, tensor<512xf32>, tensor<4x2176xi8>, tensor<128xi64>)
        -> tensor<4x2176xi8>
  %tier = indexpool.compress_paged %keys, %scores into %tier0 at %tslots
      {pool_size = 1 : i64, page_entries = 128 : i64, rotate}
      : (tensor<512x64xbf16>, tensor<512xf32>, tensor<4x8704xi8>, tensor<512xi64>)
        -> tensor<4x8704xi8>
  %cand = indexpool.select_paged %q, %w pages(%pools) block_table(%table)
      lengths(%len) {k = 32 : i64, pool_size = 4 : i64, page_entries = 32 : i64}
      : (tensor<1x1x16x64xbf16>, tensor<1x1x16xf32>, tensor<4x2176xi8>,
         tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x1x131xi32>
  %refined = indexpool.refine_paged %q, %w, %cand pages(%tier)
      block_table(%table) lengths(%len) {k = 32 : i64, page_entries = 128 : i64}
      : (tensor<1x1x16x64xbf16>, tensor<1x1x16xf32>, tensor<1x1x131xi32>,
         tensor<4x8704xi8>, tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x1x32xi32>
  %pooled = indexpool.select_paged %q, %w pages(%pools) block_table(%table)
      lengths(%len) {k = 8 : i64, pool_size = 4 : i64, page_entries = 32 : i64}
      : (tensor<1x1x16x64xbf16>, tensor<1x1x16xf32>, tensor<4x2176xi8>,
         tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x1x35xi32>
  %exact = indexpool.select_paged %q, %w pages(%tier) block_table(%table)
      lengths(%len) {k = 32 : i64, pool_size = 1 : i64, page_entries = 128 : i64}
      : (tensor<1x1x16x64xbf16>, tensor<1x1x16xf32>, tensor<4x8704xi8>,
         tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x1x32xi32>
  return %refined, %pooled, %exact
      : tensor<1x1x32xi32>, tensor<1x1x35xi32>, tensor<1x1x32xi32>
}

func.func @every_token(%keys: tensor<512x64xbf16>, %scores: tensor<512xf32>,
    %tier0: tensor<4x8704xi8>, %tslots: tensor<512xi64>,
    %q: tensor<1x1x16x64xbf16>, %w: tensor<1x1x16xf32>,
    %table: tensor<1x4xi32>, %len: tensor<1x1xi32>, %all: tensor<1x1x512xi32>)
    -> (tensor<1x1x64xi32>, tensor<1x1x64xi32>) {
  %tier = indexpool.compress_paged %keys, %scores into %tier0 at %tslots
      {pool_size = 1 : i64, page_entries = 128 : i64, rotate}
      : (tensor<512x64xbf16>, tensor<512xf32>, tensor<4x8704xi8>, tensor<512xi64>)
        -> tensor<4x8704xi8>
  %refined = indexpool.refine_paged %q, %w, %all pages(%tier)
      block_table(%table) lengths(%len) {k = 64 : i64, page_entries = 128 : i64}
      : (tensor<1x1x16x64xbf16>, tensor<1x1x16xf32>, tensor<1x1x512xi32>,
         tensor<4x8704xi8>, tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x1x64xi32>
  %selected = indexpool.select_paged %q, %w pages(%tier) block_table(%table)
      lengths(%len) {k = 64 : i64, pool_size = 1 : i64, page_entries = 128 : i64}
      : (tensor<1x1x16x64xbf16>, tensor<1x1x16xf32>, tensor<4x8704xi8>,
         tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x1x64xi32>
  return %refined, %selected : tensor<1x1x64xi32>, tensor<1x1x64xi32>
}

// 2 sequences x 2 query rows, 40 candidates each, 3 pages of 32 tokens.
func.func @refine_f8(%q: tensor<2x2x16x64xbf16>, %w: tensor<2x2x16xf32>,
    %cand: tensor<2x2x40xi32>, %tier: tensor<6x2176xi8>,
    %table: tensor<2x3xi32>, %len: tensor<2x2xi32>) -> tensor<2x2x8xi32> {
  %t = indexpool.refine_paged %q, %w, %cand pages(%tier) block_table(%table)
      lengths(%len) {k = 8 : i64, page_entries = 32 : i64}
      : (tensor<2x2x16x64xbf16>, tensor<2x2x16xf32>, tensor<2x2x40xi32>,
         tensor<6x2176xi8>, tensor<2x3xi32>, tensor<2x2xi32>) -> tensor<2x2x8xi32>
  return %t : tensor<2x2x8xi32>
}

func.func @refine_i8(%q: tensor<2x2x16x64xf8E4M3FN>, %w: tensor<2x2x16xf32>,
    %cand: tensor<2x2x40xi32>, %tier: tensor<6x2176xi8>,
    %table: tensor<2x3xi32>, %len: tensor<2x2xi32>) -> tensor<2x2x8xi32> {
  %t = indexpool.refine_paged %q, %w, %cand pages(%tier) block_table(%table)
      lengths(%len) {k = 8 : i64, page_entries = 32 : i64, codes = i8, scales_first}
      : (tensor<2x2x16x64xf8E4M3FN>, tensor<2x2x16xf32>, tensor<2x2x40xi32>,
         tensor<6x2176xi8>, tensor<2x3xi32>, tensor<2x2xi32>) -> tensor<2x2x8xi32>
  return %t : tensor<2x2x8xi32>
}

func.func @tier_prefill(%keys: tensor<100x64xbf16>, %scores: tensor<100xf32>,
    %tier: tensor<4x2176xi8>, %slots: tensor<100xi64>) -> tensor<4x2176xi8> {
  %p = indexpool.compress_paged %keys, %scores into %tier at %slots
      {pool_size = 1 : i64, page_entries = 32 : i64, rotate}
      : (tensor<100x64xbf16>, tensor<100xf32>, tensor<4x2176xi8>, tensor<100xi64>)
        -> tensor<4x2176xi8>
  return %p : tensor<4x2176xi8>
}

func.func @tier_append(%k: tensor<3x2x64xbf16>, %s: tensor<3x2xbf16>,
    %tk: tensor<3x0x64xbf16>, %ts: tensor<3x0xbf16>, %l: tensor<3xi32>,
    %tier: tensor<6x2176xi8>, %t: tensor<3x2xi32>)
    -> (tensor<6x2176xi8>, tensor<3x0x64xbf16>, tensor<3x0xbf16>) {
  %r:3 = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%l) into %tier
      block_table(%t) {pool_size = 1 : i64, page_entries = 32 : i64, rotate}
      : (tensor<3x2x64xbf16>, tensor<3x2xbf16>, tensor<3x0x64xbf16>,
         tensor<3x0xbf16>, tensor<3xi32>, tensor<6x2176xi8>, tensor<3x2xi32>)
        -> (tensor<6x2176xi8>, tensor<3x0x64xbf16>, tensor<3x0xbf16>)
  return %r#0, %r#1, %r#2 : tensor<6x2176xi8>, tensor<3x0x64xbf16>, tensor<3x0xbf16>
}
