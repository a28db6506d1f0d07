// Every field of a hand-written #indexpool.launch changes the GPU kernels
// (test/Conversion/launch-fields.mlir shows how); here the kernels so
// configured run on the GPU emulator and are checked against the float64
// reference: grid_stride, tiles of more rows than a block has row groups
// (and not a whole number of steps), and 8- and 4-byte accesses, whose
// element / lane / chunk split of the Hadamard butterflies must still agree
// with the CPU bit for bit.
// RUN: indexpool-run %s --function=compress_stride --random-inputs=1 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=compress_vec8 --random-inputs=2 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=compress_vec4_i8 --random-inputs=3 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=pool_vec4 --random-inputs=4 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=pool_token_stride --random-inputs=5 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=hadamard_vec4_f32 --random-inputs=6 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=hadamard_vec8_rank3 --random-inputs=7 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=quantize_vec8_fp8 --random-inputs=8 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=quantize_vec4_fp8 --random-inputs=9 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=score_tiled_vec8 --random-inputs=10 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=topk_stride --random-inputs=11 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=expand_tiles --random-inputs=12 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=expand_stride --random-inputs=13 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE

// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED
// TWO-COUNT-2: -> ok
// TWO-NOT: FAILED
// THREE-COUNT-3: -> ok
// THREE-NOT: FAILED

// 16 lanes of 8 bf16 (16 bytes), 8 groups per block of 128; tiles of 20
// groups (3 steps, the last with 4 groups idle); one wave of blocks strides
// over the 13 tiles.
func.func @compress_stride(%keys: tensor<1027x128xbf16>, %scores: tensor<1027x128xf32>, %b: tensor<4x128xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%b)
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 128, items_per_block = 20,
           elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>,
       pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1027x128xbf16>, tensor<1027x128xf32>, tensor<4x128xf32>)
        -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>)
  return %q, %s, %w : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>
}

// 8-byte accesses: 4 bf16 per access, 2 chunks, 16 lanes; the rotation's
// chunk butterflies now start at bit 6 instead of never.
func.func @compress_vec8(%keys: tensor<400x128xbf16>, %scores: tensor<400x128xf32>)
    -> (tensor<100x128xf8E4M3FN>, tensor<100xf32>, tensor<100x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 8,
           elements_per_thread = 8, vector_bytes = 8, grid = tiled>,
       pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<400x128xbf16>, tensor<400x128xf32>)
        -> (tensor<100x128xf8E4M3FN>, tensor<100xf32>, tensor<100x4x128xf32>)
  return %q, %s, %w : tensor<100x128xf8E4M3FN>, tensor<100xf32>, tensor<100x4x128xf32>
}

// 4-byte accesses of f16: 2 per access, 4 chunks, 8 lanes (4 rows per
// warp); one score per token, INT8 codes.
func.func @compress_vec4_i8(%keys: tensor<300x64xf16>, %scores: tensor<300xf32>, %b: tensor<4xf32>)
    -> (tensor<75x64xi8>, tensor<75xf32>, tensor<75x4xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%b)
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 96, items_per_block = 30,
           elements_per_thread = 8, vector_bytes = 4, grid = grid_stride>,
       pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<300x64xf16>, tensor<300xf32>, tensor<4xf32>) -> (tensor<75x64xi8>, tensor<75xf32>, tensor<75x4xf32>)
  return %q, %s, %w : tensor<75x64xi8>, tensor<75xf32>, tensor<75x4xf32>
}

// Per-channel scores with 4-byte accesses (2 f16, 2 chunks, 16 lanes).
func.func @pool_vec4(%keys: tensor<512x64xf16>, %scores: tensor<512x64xf16>, %bias: tensor<4x64xf16>)
    -> (tensor<128x64xf32>, tensor<128x4x64xf32>) {
  %p, %w = indexpool.pool %keys, %scores bias(%bias)
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 12,
           elements_per_thread = 4, vector_bytes = 4, grid = tiled>,
       pool_size = 4 : i64, temperature = 2.0 : f32}
      : (tensor<512x64xf16>, tensor<512x64xf16>, tensor<4x64xf16>) -> (tensor<128x64xf32>, tensor<128x4x64xf32>)
  return %p, %w : tensor<128x64xf32>, tensor<128x4x64xf32>
}

// Per-token scores, a tail of T % P tokens, grid-stride tiles of 5 steps.
func.func @pool_token_stride(%keys: tensor<1003x32xbf16>, %scores: tensor<1003xf32>)
    -> (tensor<250x32xf32>, tensor<250x4xf32>) {
  %p, %w = indexpool.pool %keys, %scores
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 32, items_per_block = 40,
           elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>,
       pool_size = 4 : i64}
      : (tensor<1003x32xbf16>, tensor<1003xf32>) -> (tensor<250x32xf32>, tensor<250x4xf32>)
  return %p, %w : tensor<250x32xf32>, tensor<250x4xf32>
}

// One f32 per access: no element butterflies, 32 lanes, 8 chunks.
func.func @hadamard_vec4_f32(%x: tensor<37x256xf32>) -> tensor<37x256xf32> {
  %y = indexpool.hadamard %x
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 5,
           elements_per_thread = 8, vector_bytes = 4, grid = grid_stride>}
      : (tensor<37x256xf32>) -> tensor<37x256xf32>
  return %y : tensor<37x256xf32>
}

// 8-byte accesses of bf16: 4 per access, 4 chunks, 8 lanes.
func.func @hadamard_vec8_rank3(%x: tensor<3x7x128xbf16>) -> tensor<3x7x128xbf16> {
  %y = indexpool.hadamard %x
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 16,
           elements_per_thread = 16, vector_bytes = 8, grid = tiled>}
      : (tensor<3x7x128xbf16>) -> tensor<3x7x128xbf16>
  return %y : tensor<3x7x128xbf16>
}

// FP8 codes through the hardware encoder (pairs of an 8-byte access).
func.func @quantize_vec8_fp8(%x: tensor<333x128xbf16>) -> (tensor<333x128xf8E4M3FN>, tensor<333xf32>) {
  %c, %s = indexpool.quantize %x
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 128, items_per_block = 33,
           elements_per_thread = 8, vector_bytes = 8, grid = grid_stride>, pow2_scale}
      : (tensor<333x128xbf16>) -> (tensor<333x128xf8E4M3FN>, tensor<333xf32>)
  return %c, %s : tensor<333x128xf8E4M3FN>, tensor<333xf32>
}

// One f32 per access: FP8 codes one at a time (the integer encoder).
func.func @quantize_vec4_fp8(%x: tensor<100x64xf32>) -> (tensor<100x64xf8E4M3FN>, tensor<100xf32>) {
  %c, %s = indexpool.quantize %x
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 32, items_per_block = 7,
           elements_per_thread = 2, vector_bytes = 4, grid = tiled>}
      : (tensor<100x64xf32>) -> (tensor<100x64xf8E4M3FN>, tensor<100xf32>)
  return %c, %s : tensor<100x64xf8E4M3FN>, tensor<100xf32>
}

// One block per tile of 50 key rows (threads loop over a tile larger than
// the block), keys read 8 bytes at a time.
func.func @score_tiled_vec8(%q: tensor<2x64x64xbf16>, %w: tensor<2x64xf32>,
                            %k: tensor<333x64xbf16>) -> tensor<2x333xf32> {
  %l = indexpool.score %q, %w, %k
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 32, items_per_block = 50,
           elements_per_thread = 8, vector_bytes = 8, grid = tiled>}
      : (tensor<2x64x64xbf16>, tensor<2x64xf32>, tensor<333x64xbf16>) -> tensor<2x333xf32>
  return %l : tensor<2x333xf32>
}

// Tiles of 3 rows, a row at a time per block, grid-stride.
func.func @topk_stride(%x: tensor<7x300xf32>) -> (tensor<7x40xf32>, tensor<7x40xi32>) {
  %v, %i = indexpool.topk %x
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 3,
           elements_per_thread = 4, vector_bytes = 16, grid = grid_stride>, k = 40 : i64}
      : (tensor<7x300xf32>) -> (tensor<7x40xf32>, tensor<7x40xi32>)
  return %v, %i : tensor<7x40xf32>, tensor<7x40xi32>
}

// Tiles of 2 query rows (200 entries for 64 threads).
func.func @expand_tiles(%i: tensor<5x100xi32>) -> tensor<5x400xi32> {
  %t = indexpool.expand %i
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 2,
           elements_per_thread = 4, vector_bytes = 16, grid = tiled>, pool_size = 4 : i64}
      : (tensor<5x100xi32>) -> tensor<5x400xi32>
  return %t : tensor<5x400xi32>
}

func.func @expand_stride(%i: tensor<9x33xi32>) -> tensor<9x66xi32> {
  %t = indexpool.expand %i
      {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 32, items_per_block = 1,
           elements_per_thread = 4, vector_bytes = 16, grid = grid_stride>, pool_size = 2 : i64}
      : (tensor<9x33xi32>) -> tensor<9x66xi32>
  return %t : tensor<9x66xi32>
}
