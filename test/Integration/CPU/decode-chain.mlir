// A decode loop on the CPU (docs/serving-layout.md): 8 sequences of
// lengths 0 to 66 prefilled by compress_paged (the groups they complete),
// then six append_paged steps of 1 and 3 tokens (groups completed across the
// tail, page boundaries crossed). The final pages must be byte-identical to
// one compress_paged of the whole sequences: a group is compressed by the
// same code path whichever op completes it. Inputs/decode_chain.py writes
// the inputs (bf16-exact keys, a shuffled block table, random page bytes)
// and compares the two pages; --verify checks every result against the
// float64 reference.
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/decode_chain.py make %t
// RUN: indexpool-run %s --function=chain --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/pages.npy --input=@%t/table.npy --input=@%t/whole_slots.npy --input=@%t/prefill_slots.npy --input=@%t/tail_keys.npy --input=@%t/tail_scores.npy --input=@%t/len0.npy --input=@%t/keys0.npy --input=@%t/scores0.npy --input=@%t/len1.npy --input=@%t/keys1.npy --input=@%t/scores1.npy --input=@%t/len2.npy --input=@%t/keys2.npy --input=@%t/scores2.npy --input=@%t/len3.npy --input=@%t/keys3.npy --input=@%t/scores3.npy --input=@%t/len4.npy --input=@%t/keys4.npy --input=@%t/scores4.npy --input=@%t/len5.npy --input=@%t/keys5.npy --input=@%t/scores5.npy --output=@%t/chain.npy --output=@%t/whole.npy --output=@%t/tail_keys_out.npy --output=@%t/tail_scores_out.npy --verify | FileCheck %s --check-prefix=VERIFY
// RUN: python3 %S/Inputs/decode_chain.py check %t/chain.npy %t/whole.npy | FileCheck %s --check-prefix=SAME
// RUN: indexpool-run %s --function=chain --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/pages.npy --input=@%t/table.npy --input=@%t/whole_slots.npy --input=@%t/prefill_slots.npy --input=@%t/tail_keys.npy --input=@%t/tail_scores.npy --input=@%t/len0.npy --input=@%t/keys0.npy --input=@%t/scores0.npy --input=@%t/len1.npy --input=@%t/keys1.npy --input=@%t/scores1.npy --input=@%t/len2.npy --input=@%t/keys2.npy --input=@%t/scores2.npy --input=@%t/len3.npy --input=@%t/keys3.npy --input=@%t/scores3.npy --input=@%t/len4.npy --input=@%t/keys4.npy --input=@%t/scores4.npy --input=@%t/len5.npy --input=@%t/keys5.npy --input=@%t/scores5.npy --check-bounds | FileCheck %s --check-prefix=BOUNDS

// VERIFY-COUNT-4: -> ok
// VERIFY-NOT: FAILED
// SAME: pages identical: 19584 bytes
// BOUNDS-NOT: error

func.func @chain(%keys: tensor<640x64xbf16>,
    %scores: tensor<640xf32>,
    %pages: tensor<18x1088xi8>,
    %table: tensor<8x2xi32>,
    %whole_slots: tensor<160xi64>,
    %prefill_slots: tensor<160xi64>,
    %tk0: tensor<8x3x64xbf16>,
    %ts0: tensor<8x3xf32>,
    %len0: tensor<8xi32>,
    %k0: tensor<8x1x64xbf16>,
    %s0: tensor<8x1xf32>,
    %len1: tensor<8xi32>,
    %k1: tensor<8x3x64xbf16>,
    %s1: tensor<8x3xf32>,
    %len2: tensor<8xi32>,
    %k2: tensor<8x1x64xbf16>,
    %s2: tensor<8x1xf32>,
    %len3: tensor<8xi32>,
    %k3: tensor<8x3x64xbf16>,
    %s3: tensor<8x3xf32>,
    %len4: tensor<8xi32>,
    %k4: tensor<8x1x64xbf16>,
    %s4: tensor<8x1xf32>,
    %len5: tensor<8xi32>,
    %k5: tensor<8x3x64xbf16>,
    %s5: tensor<8x3xf32>)
    -> (tensor<18x1088xi8>, tensor<18x1088xi8>, tensor<8x3x64xbf16>,
        tensor<8x3xf32>) {
  %whole = indexpool.compress_paged %keys, %scores into %pages at %whole_slots
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
      : (tensor<640x64xbf16>, tensor<640xf32>, tensor<18x1088xi8>,
         tensor<160xi64>) -> tensor<18x1088xi8>
  %p0 = indexpool.compress_paged %keys, %scores into %pages at %prefill_slots
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
      : (tensor<640x64xbf16>, tensor<640xf32>, tensor<18x1088xi8>,
         tensor<160xi64>) -> tensor<18x1088xi8>
  %p1, %tk1, %ts1 = indexpool.append_paged %k0, %s0
      tail(%tk0, %ts0) lengths(%len0) into %p0 block_table(%table)
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
      : (tensor<8x1x64xbf16>, tensor<8x1xf32>, tensor<8x3x64xbf16>,
         tensor<8x3xf32>, tensor<8xi32>, tensor<18x1088xi8>, tensor<8x2xi32>)
        -> (tensor<18x1088xi8>, tensor<8x3x64xbf16>, tensor<8x3xf32>)
  %p2, %tk2, %ts2 = indexpool.append_paged %k1, %s1
      tail(%tk1, %ts1) lengths(%len1) into %p1 block_table(%table)
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
      : (tensor<8x3x64xbf16>, tensor<8x3xf32>, tensor<8x3x64xbf16>,
         tensor<8x3xf32>, tensor<8xi32>, tensor<18x1088xi8>, tensor<8x2xi32>)
        -> (tensor<18x1088xi8>, tensor<8x3x64xbf16>, tensor<8x3xf32>)
  %p3, %tk3, %ts3 = indexpool.append_paged %k2, %s2
      tail(%tk2, %ts2) lengths(%len2) into %p2 block_table(%table)
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
      : (tensor<8x1x64xbf16>, tensor<8x1xf32>, tensor<8x3x64xbf16>,
         tensor<8x3xf32>, tensor<8xi32>, tensor<18x1088xi8>, tensor<8x2xi32>)
        -> (tensor<18x1088xi8>, tensor<8x3x64xbf16>, tensor<8x3xf32>)
  %p4, %tk4, %ts4 = indexpool.append_paged %k3, %s3
      tail(%tk3, %ts3) lengths(%len3) into %p3 block_table(%table)
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
      : (tensor<8x3x64xbf16>, tensor<8x3xf32>, tensor<8x3x64xbf16>,
         tensor<8x3xf32>, tensor<8xi32>, tensor<18x1088xi8>, tensor<8x2xi32>)
        -> (tensor<18x1088xi8>, tensor<8x3x64xbf16>, tensor<8x3xf32>)
  %p5, %tk5, %ts5 = indexpool.append_paged %k4, %s4
      tail(%tk4, %ts4) lengths(%len4) into %p4 block_table(%table)
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
      : (tensor<8x1x64xbf16>, tensor<8x1xf32>, tensor<8x3x64xbf16>,
         tensor<8x3xf32>, tensor<8xi32>, tensor<18x1088xi8>, tensor<8x2xi32>)
        -> (tensor<18x1088xi8>, tensor<8x3x64xbf16>, tensor<8x3xf32>)
  %p6, %tk6, %ts6 = indexpool.append_paged %k5, %s5
      tail(%tk5, %ts5) lengths(%len5) into %p5 block_table(%table)
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
      : (tensor<8x3x64xbf16>, tensor<8x3xf32>, tensor<8x3x64xbf16>,
         tensor<8x3xf32>, tensor<8xi32>, tensor<18x1088xi8>, tensor<8x2xi32>)
        -> (tensor<18x1088xi8>, tensor<8x3x64xbf16>, tensor<8x3xf32>)
  return %p6, %whole, %tk6, %ts6
      : tensor<18x1088xi8>, tensor<18x1088xi8>, tensor<8x3x64xbf16>,
        tensor<8x3xf32>
}
