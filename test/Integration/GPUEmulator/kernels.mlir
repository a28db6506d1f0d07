// The GPU kernels of --indexpool-to-gpu-kernels, run on CPU threads by the
// GPU emulator (one OpenMP thread per GPU thread, shuffles and barriers
// emulated) and checked against the float64 reference with the CPU's
// tolerances. Shapes cover every lane layout of compress (16, 2 and 32 lanes
// x 8 chunks per group), the tail T % P, per-token and per-channel scores,
// both FP8 encoders (e4m3x2 on sm_90, integer on sm_80), score with two head
// blocks and a key tail, topk with ties, NaN, -0/+0, k > N and valid lengths.
// RUN: indexpool-run %s --function=compress_bf16 --random-inputs=1 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=compress_bf16 --random-inputs=2 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=compress_f32_wide --random-inputs=3 --device=gpu-emulator --chip=sm_120 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=compress_narrow --random-inputs=4 --device=gpu-emulator --chip=sm_89 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=compress_token_i8 --random-inputs=5 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=compress_dynamic --random-inputs=6 --input-shape=0:203x64 --input-shape=1:203x64 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %s --function=score_two_head_blocks --random-inputs=7 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=score_f32_tail --random-inputs=8 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %s --function=topk_ties --random-inputs=9 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=topk_zeros --random-inputs=13 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=topk_nan --random-inputs=10 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=topk_short --random-inputs=11 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=select_fp8 --random-inputs=12 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: not indexpool-run %s --function=topk_short --random-inputs=1 --device=gpu-emulator --chip=sm_42 2>&1 | FileCheck %s --check-prefix=CHIP
// Functions of the CPU integration tests, with their shapes: pool,
// hadamard (rank 3, and D = 1024) and quantize are warp-row kernels too.
// RUN: indexpool-run %S/../CPU/pool.mlir --function=bf16_token_tail --random-inputs=1 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %S/../CPU/pool.mlir --function=f16_channel_bias --random-inputs=2 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %S/../CPU/hadamard.mlir --function=rank3 --random-inputs=3 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/hadamard.mlir --function=wide --random-inputs=4 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/quantize.mlir --function=f8_pow2 --random-inputs=1 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %S/../CPU/quantize.mlir --function=i8_f32 --random-inputs=2 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %S/../CPU/compress.mlir --function=f32_dynamic --random-inputs=3 --input-shape=0:1001x64 --input-shape=1:1001x64 --device=gpu-emulator --chip=sm_86 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/../CPU/score.mlir --function=rows_tail --random-inputs=5 --input-shape=2:1003x40 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/topk.mlir --function=topk_valid --random-inputs=2 --device=gpu-emulator --chip=sm_100 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %S/../CPU/select.mlir --function=bf16_plain --random-inputs=2 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/select.mlir --function=i8_dynamic --random-inputs=3 --input-shape=0:2x8x64 --input-shape=1:2x8 --input-shape=2:700x64 --input-shape=3:700 --input-shape=4:2 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// hadamard's row kernel with rows known at run time and on a rank-1 input.
// RUN: indexpool-run %S/../CPU/hadamard.mlir --function=dynamic_rows --random-inputs=6 --input-shape=0:7x1x64x128 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/hadamard.mlir --function=vector1d --random-inputs=5 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=ONE

// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED
// TWO-COUNT-2: -> ok
// TWO-NOT: FAILED
// THREE-COUNT-3: -> ok
// THREE-NOT: FAILED
// CHIP: indexpool-run: error: unknown chip 'sm_42'; known chips: sm_80

// 16 lanes of 8 bf16 per group, 2 groups per warp; T % 4 = 3 tail tokens.
func.func @compress_bf16(%keys: tensor<1027x128xbf16>, %scores: tensor<1027x128xf32>, %b: tensor<4x128xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1027x128xbf16>, tensor<1027x128xf32>, tensor<4x128xf32>)
        -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>)
  return %q, %s, %w : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>
}

// D = 1024 f32: 32 lanes x 8 chunks of 4; the f32 1/sqrt(D) of long rows;
// pool size 2, a temperature, a scale by division (no pow2_scale).
func.func @compress_f32_wide(%keys: tensor<64x1024xf32>, %scores: tensor<64x1024xf32>)
    -> (tensor<32x1024xf8E4M3FN>, tensor<32xf32>, tensor<32x2x1024xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 2 : i64, rotate, temperature = 0.5 : f32}
      : (tensor<64x1024xf32>, tensor<64x1024xf32>)
        -> (tensor<32x1024xf8E4M3FN>, tensor<32xf32>, tensor<32x2x1024xf32>)
  return %q, %s, %w : tensor<32x1024xf8E4M3FN>, tensor<32xf32>, tensor<32x2x1024xf32>
}

// D = 16 f16: 2 lanes per group, 16 groups per warp; pool size 8.
func.func @compress_narrow(%keys: tensor<300x16xf16>, %scores: tensor<300x16xbf16>)
    -> (tensor<37x16xf8E4M3FN>, tensor<37xf32>, tensor<37x8x16xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 8 : i64, rotate, pow2_scale}
      : (tensor<300x16xf16>, tensor<300x16xbf16>)
        -> (tensor<37x16xf8E4M3FN>, tensor<37xf32>, tensor<37x8x16xf32>)
  return %q, %s, %w : tensor<37x16xf8E4M3FN>, tensor<37xf32>, tensor<37x8x16xf32>
}

// One score per token with a bias, INT8 codes, no rotation.
func.func @compress_token_i8(%keys: tensor<512x64xbf16>, %scores: tensor<512xf32>, %b: tensor<4xf32>)
    -> (tensor<128x64xi8>, tensor<128xf32>, tensor<128x4xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64}
      : (tensor<512x64xbf16>, tensor<512xf32>, tensor<4xf32>) -> (tensor<128x64xi8>, tensor<128xf32>, tensor<128x4xf32>)
  return %q, %s, %w : tensor<128x64xi8>, tensor<128xf32>, tensor<128x4xf32>
}

// A dynamic number of tokens (the group count read at run time).
func.func @compress_dynamic(%keys: tensor<?x64xf32>, %scores: tensor<?x64xf32>)
    -> (tensor<?x64xf8E4M3FN>, tensor<?xf32>, tensor<?x4x64xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<?x64xf32>, tensor<?x64xf32>) -> (tensor<?x64xf8E4M3FN>, tensor<?xf32>, tensor<?x4x64xf32>)
  return %q, %s, %w : tensor<?x64xf8E4M3FN>, tensor<?xf32>, tensor<?x4x64xf32>
}

// H = 128: two blocks of 64 accumulators; FP8 keys with scales; 2 rows.
func.func @score_two_head_blocks(%q: tensor<2x128x64xbf16>, %w: tensor<2x128xf32>,
                                 %k: tensor<700x64xf8E4M3FN>, %s: tensor<700xf32>) -> tensor<2x700xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<2x128x64xbf16>, tensor<2x128xf32>, tensor<700x64xf8E4M3FN>, tensor<700xf32>) -> tensor<2x700xf32>
  return %l : tensor<2x700xf32>
}

// f32 keys (4 per 16-byte load), N not a multiple of the keys per block.
func.func @score_f32_tail(%q: tensor<3x8x32xf32>, %w: tensor<3x8xf32>, %k: tensor<1500x32xf32>) -> tensor<3x1500xf32> {
  %l = indexpool.score %q, %w, %k : (tensor<3x8x32xf32>, tensor<3x8xf32>, tensor<1500x32xf32>) -> tensor<3x1500xf32>
  return %l : tensor<3x1500xf32>
}

// Logits clamped to [-0.25, 0.25]: hundreds of ties at each end, the top
// 700 all from the tie at 0.25, broken by the smaller column.
func.func @topk_ties(%x: tensor<3x2000xf32>) -> (tensor<3x700xf32>, tensor<3x700xi32>) {
  %lo = arith.constant dense<-0.25> : tensor<3x2000xf32>
  %hi = arith.constant dense<0.25> : tensor<3x2000xf32>
  %a = arith.maximumf %x, %lo : tensor<3x2000xf32>
  %l = arith.minimumf %a, %hi : tensor<3x2000xf32>
  %v, %i = indexpool.topk %l {k = 700 : i64} : (tensor<3x2000xf32>) -> (tensor<3x700xf32>, tensor<3x700xi32>)
  return %v, %i : tensor<3x700xf32>, tensor<3x700xi32>
}

// x * 0 is -0 for negative x and +0 otherwise: all equal values, so the
// columns come in order.
func.func @topk_zeros(%x: tensor<2x300xf32>) -> (tensor<2x100xf32>, tensor<2x100xi32>) {
  %zero = arith.constant dense<0.0> : tensor<2x300xf32>
  %l = arith.mulf %x, %zero : tensor<2x300xf32>
  %v, %i = indexpool.topk %l {k = 100 : i64} : (tensor<2x300xf32>) -> (tensor<2x100xf32>, tensor<2x100xi32>)
  return %v, %i : tensor<2x100xf32>, tensor<2x100xi32>
}

// max(x, 0) / max(x, 0) is NaN for x <= 0 (about half the columns) and 1
// otherwise: NaN ranks below every number, and k reaches into the NaNs.
func.func @topk_nan(%x: tensor<2x500xf32>) -> (tensor<2x400xf32>, tensor<2x400xi32>) {
  %zero = arith.constant dense<0.0> : tensor<2x500xf32>
  %m = arith.maximumf %x, %zero : tensor<2x500xf32>
  %r = arith.divf %m, %m : tensor<2x500xf32>
  %l = arith.addf %x, %r : tensor<2x500xf32>
  %v, %i = indexpool.topk %l {k = 400 : i64} : (tensor<2x500xf32>) -> (tensor<2x400xf32>, tensor<2x400xi32>)
  return %v, %i : tensor<2x400xf32>, tensor<2x400xi32>
}

// Valid lengths in [0, 120]: rows with fewer than k columns are padded.
func.func @topk_short(%l: tensor<5x120xf32>, %len: tensor<5xi32>) -> (tensor<5x100xf32>, tensor<5x100xi32>) {
  %v, %i = indexpool.topk %l valid(%len) {k = 100 : i64}
      : (tensor<5x120xf32>, tensor<5xi32>) -> (tensor<5x100xf32>, tensor<5x100xi32>)
  return %v, %i : tensor<5x100xf32>, tensor<5x100xi32>
}

// select = score -> topk -> expand, three kernels.
func.func @select_fp8(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %k: tensor<2000x128xf8E4M3FN>,
                      %s: tensor<2000xf32>) -> tensor<1x512xi32> {
  %t = indexpool.select %q, %w, %k scales(%s) {k = 128 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<2000x128xf8E4M3FN>, tensor<2000xf32>) -> tensor<1x512xi32>
  return %t : tensor<1x512xi32>
}
