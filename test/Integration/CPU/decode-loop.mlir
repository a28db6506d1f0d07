// The decode loop of a serving engine on the CPU (docs/serving-layout.md):
// 8 sequences of lengths 0 to 66 prefilled by compress_paged, then 1000
// steps of an scf.for, each appending one token to every sequence
// (append_paged, in place: the pages, tails and lengths are the loop's
// iter_args). The final pages must be byte-identical to one compress_paged
// of the whole sequences (every group compressed by the same code, whichever
// op completes it), the tail the last L mod P tokens; --verify checks every
// result against the float64 reference, which runs the same loop. The GPU
// kernels run the same loop in the GPU emulator, with 12 steps (emulated
// threads are slow): the same bytes.
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/decode_chain.py loop %t 1000
// RUN: indexpool-run %s --function=loop --input=@%t/keys.npy --input=@%t/scores.npy --input=@%t/pages.npy --input=@%t/table.npy --input=@%t/whole_slots.npy --input=@%t/prefill_slots.npy --input=@%t/tail_keys.npy --input=@%t/tail_scores.npy --input=@%t/lengths.npy --input=@%t/step_keys.npy --input=@%t/step_scores.npy --output=@%t/loop.npy --output=@%t/whole.npy --output=@%t/tail_keys_out.npy --output=@%t/tail_scores_out.npy --output=@%t/lengths_out.npy --verify | FileCheck %s --check-prefix=VERIFY
// RUN: python3 %S/Inputs/decode_chain.py check %t/loop.npy %t/whole.npy | FileCheck %s --check-prefix=SAME
// RUN: mkdir -p %t/gpu && python3 %S/Inputs/decode_chain.py loop %t/gpu 12
// RUN: indexpool-run %s --function=loop --input=@%t/gpu/keys.npy --input=@%t/gpu/scores.npy --input=@%t/gpu/pages.npy --input=@%t/gpu/table.npy --input=@%t/gpu/whole_slots.npy --input=@%t/gpu/prefill_slots.npy --input=@%t/gpu/tail_keys.npy --input=@%t/gpu/tail_scores.npy --input=@%t/gpu/lengths.npy --input=@%t/gpu/step_keys.npy --input=@%t/gpu/step_scores.npy --output=@%t/gpu/loop.npy --output=@%t/gpu/whole.npy --output=@%t/gpu/tail_keys_out.npy --output=@%t/gpu/tail_scores_out.npy --output=@%t/gpu/lengths_out.npy --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=VERIFY
// RUN: python3 %S/Inputs/decode_chain.py check %t/gpu/loop.npy %t/gpu/whole.npy | FileCheck %s --check-prefix=SAME12

// VERIFY-COUNT-5: -> ok
// VERIFY-NOT: FAILED
// SAME: pages identical: 147968 bytes
// SAME12: pages identical: 17408 bytes

func.func @loop(%keys: tensor<?x64xbf16>, %scores: tensor<?xf32>,
    %pages: tensor<?x1088xi8>, %table: tensor<8x?xi32>,
    %whole_slots: tensor<?xi64>, %prefill_slots: tensor<?xi64>,
    %tail_keys: tensor<8x3x64xbf16>, %tail_scores: tensor<8x3xf32>,
    %lengths: tensor<8xi32>, %step_keys: tensor<?x8x1x64xbf16>,
    %step_scores: tensor<?x8x1xf32>)
    -> (tensor<?x1088xi8>, tensor<?x1088xi8>, tensor<8x3x64xbf16>,
        tensor<8x3xf32>, tensor<8xi32>) {
  %whole = indexpool.compress_paged %keys, %scores into %pages at %whole_slots
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
      : (tensor<?x64xbf16>, tensor<?xf32>, tensor<?x1088xi8>, tensor<?xi64>)
        -> tensor<?x1088xi8>
  %prefilled = indexpool.compress_paged %keys, %scores into %pages
      at %prefill_slots
      {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
      : (tensor<?x64xbf16>, tensor<?xf32>, tensor<?x1088xi8>, tensor<?xi64>)
        -> tensor<?x1088xi8>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = tensor.dim %step_keys, %c0 : tensor<?x8x1x64xbf16>
  %one = arith.constant dense<1> : tensor<8xi32>
  %final:4 = scf.for %i = %c0 to %steps step %c1
      iter_args(%p = %prefilled, %tk = %tail_keys, %ts = %tail_scores,
                %len = %lengths)
      -> (tensor<?x1088xi8>, tensor<8x3x64xbf16>, tensor<8x3xf32>,
          tensor<8xi32>) {
    %k = tensor.extract_slice %step_keys[%i, 0, 0, 0] [1, 8, 1, 64]
        [1, 1, 1, 1] : tensor<?x8x1x64xbf16> to tensor<8x1x64xbf16>
    %s = tensor.extract_slice %step_scores[%i, 0, 0] [1, 8, 1] [1, 1, 1]
        : tensor<?x8x1xf32> to tensor<8x1xf32>
    %p2, %tk2, %ts2 = indexpool.append_paged %k, %s tail(%tk, %ts)
        lengths(%len) into %p block_table(%table)
        {pool_size = 4 : i64, page_entries = 16 : i64, rotate, pow2_scale}
        : (tensor<8x1x64xbf16>, tensor<8x1xf32>, tensor<8x3x64xbf16>,
           tensor<8x3xf32>, tensor<8xi32>, tensor<?x1088xi8>,
           tensor<8x?xi32>)
          -> (tensor<?x1088xi8>, tensor<8x3x64xbf16>, tensor<8x3xf32>)
    %len2 = arith.addi %len, %one : tensor<8xi32>
    scf.yield %p2, %tk2, %ts2, %len2
        : tensor<?x1088xi8>, tensor<8x3x64xbf16>, tensor<8x3xf32>,
          tensor<8xi32>
  }
  return %final#0, %whole, %final#1, %final#2, %final#3
      : tensor<?x1088xi8>, tensor<?x1088xi8>, tensor<8x3x64xbf16>,
        tensor<8x3xf32>, tensor<8xi32>
}
