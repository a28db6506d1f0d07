// A valid op with an empty dimension computes nothing: indexpool-compile
// emits no launch for it (a zero grid is an error in CUDA), its results are
// empty buffers, and a function whose ops are all empty still compiles, to
// a binary without kernels and a manifest with "launches": []. Ops with an
// empty dimension but non-empty results (weights or scales of rows with
// D = 0, logits of H = 0 heads) still launch and agree with the reference.
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_90 --emit=ptx -o %t > /dev/null
// RUN: cat %t/pool_t0.sm_90.json %t/pool_short.sm_90.json %t/compress_t0.sm_90.json %t/topk_m0.sm_90.json %t/topk_valid_m0.sm_90.json %t/hadamard_0.sm_90.json %t/hadamard3_0.sm_90.json %t/quantize_0.sm_90.json %t/dequantize_0.sm_90.json %t/score_n0.sm_90.json %t/score_m0.sm_90.json %t/select_m0.sm_90.json %t/expand_0.sm_90.json %t/residual_0.sm_90.json %t/reconstruct_0.sm_90.json | FileCheck %s --check-prefix=EMPTY
// RUN: FileCheck %s --check-prefix=PTX < %t/compress_t0.sm_90.ptx
// RUN: python3 %S/Inputs/eval_sizes.py %t/pool_d0.sm_90.json 132 | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/Inputs/eval_sizes.py %t/score_d0.sm_90.json 132 | FileCheck %s --check-prefix=PANEL
// RUN: python3 %S/Inputs/eval_sizes.py %t/score_h0.sm_90.json 132 | FileCheck %s --check-prefix=ONE
// RUN: indexpool-compile %s --chip=sm_90 --emit=cubin --function=compress_t0 -o %t/cubin > /dev/null
// RUN: test -f %t/cubin/compress_t0.sm_90.cubin
// The runtime accepts the manifests (no launch of grid 0) and the empty
// results agree with the reference.
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %t/compress_t0.sm_90.json --random-inputs=1 --verify | FileCheck %s --check-prefix=LAUNCH
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %t/select_m0.sm_90.json --random-inputs=1 --verify | FileCheck %s --check-prefix=LAUNCH
// The same kernels in the GPU emulator.
// RUN: indexpool-run %s --device=gpu-emulator --chip=sm_90 --function=pool_short --random-inputs=1 --verify | FileCheck %s --check-prefix=LAUNCH
// RUN: indexpool-run %s --device=gpu-emulator --chip=sm_90 --function=score_m0 --random-inputs=1 --verify | FileCheck %s --check-prefix=LAUNCH
// RUN: indexpool-run %s --device=gpu-emulator --chip=sm_90 --function=pool_d0 --random-inputs=2 --verify | FileCheck %s --check-prefix=LAUNCH
// RUN: indexpool-run %s --device=gpu-emulator --chip=sm_90 --function=compress_d0 --random-inputs=2 --verify | FileCheck %s --check-prefix=LAUNCH
// RUN: indexpool-run %s --device=gpu-emulator --chip=sm_90 --function=score_h0 --random-inputs=2 --verify | FileCheck %s --check-prefix=LAUNCH
// RUN: indexpool-run %s --device=gpu-emulator --chip=sm_90 --function=score_d0 --random-inputs=2 --verify | FileCheck %s --check-prefix=LAUNCH

// EMPTY-COUNT-15: "launches": [],
// PTX: .target sm_90
// PTX-NOT: .entry
// ONE: launch {{.*}} grid 1x1x1
// ONE-NOT: launch
// A score the GPU kernel does not take (D = 0) runs the row loops: the
// query laid out for them (ScoreRows.h), then the logits.
// PANEL: launch score_d0_kernel grid 1x1x1
// PANEL-NEXT: launch score_d0_kernel_0 grid 1x1x1
// PANEL-NOT: launch
// LAUNCH: -> ok
// LAUNCH-NOT: out of tolerance

func.func @pool_t0(%k: tensor<0x128xbf16>, %s: tensor<0xf32>) -> (tensor<0x128xbf16>, tensor<0x4xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<0x128xbf16>, tensor<0xf32>) -> (tensor<0x128xbf16>, tensor<0x4xf32>)
  return %p, %w : tensor<0x128xbf16>, tensor<0x4xf32>
}
func.func @pool_short(%k: tensor<3x128xbf16>, %s: tensor<3xf32>) -> (tensor<0x128xbf16>, tensor<0x4xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<3x128xbf16>, tensor<3xf32>) -> (tensor<0x128xbf16>, tensor<0x4xf32>)
  return %p, %w : tensor<0x128xbf16>, tensor<0x4xf32>
}
func.func @compress_t0(%keys: tensor<0x128xbf16>, %scores: tensor<0x128xf32>, %b: tensor<4x128xf32>)
    -> (tensor<0x128xf8E4M3FN>, tensor<0xf32>, tensor<0x4x128xf32>) {
  %q, %scale, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<0x128xbf16>, tensor<0x128xf32>, tensor<4x128xf32>)
        -> (tensor<0x128xf8E4M3FN>, tensor<0xf32>, tensor<0x4x128xf32>)
  return %q, %scale, %w : tensor<0x128xf8E4M3FN>, tensor<0xf32>, tensor<0x4x128xf32>
}
func.func @topk_m0(%logits: tensor<0x1024xf32>) -> (tensor<0x64xf32>, tensor<0x64xi32>) {
  %vals, %idx = indexpool.topk %logits {k = 64 : i64} : (tensor<0x1024xf32>) -> (tensor<0x64xf32>, tensor<0x64xi32>)
  return %vals, %idx : tensor<0x64xf32>, tensor<0x64xi32>
}
func.func @hadamard_0(%x: tensor<0x128xbf16>) -> tensor<0x128xbf16> {
  %y = indexpool.hadamard %x : (tensor<0x128xbf16>) -> tensor<0x128xbf16>
  return %y : tensor<0x128xbf16>
}
func.func @quantize_0(%x: tensor<0x128xbf16>) -> (tensor<0x128xf8E4M3FN>, tensor<0xf32>) {
  %q, %s = indexpool.quantize %x {pow2_scale} : (tensor<0x128xbf16>) -> (tensor<0x128xf8E4M3FN>, tensor<0xf32>)
  return %q, %s : tensor<0x128xf8E4M3FN>, tensor<0xf32>
}
func.func @dequantize_0(%q: tensor<0x128xf8E4M3FN>, %s: tensor<0xf32>) -> tensor<0x128xf32> {
  %x = indexpool.dequantize %q, %s : (tensor<0x128xf8E4M3FN>, tensor<0xf32>) -> tensor<0x128xf32>
  return %x : tensor<0x128xf32>
}
func.func @score_n0(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<0x128xbf16>) -> tensor<1x0xf32> {
  %l = indexpool.score %q, %w, %keys : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<0x128xbf16>) -> tensor<1x0xf32>
  return %l : tensor<1x0xf32>
}
func.func @score_m0(%q: tensor<0x64x128xbf16>, %w: tensor<0x64xf32>, %keys: tensor<256x128xbf16>) -> tensor<0x256xf32> {
  %l = indexpool.score %q, %w, %keys : (tensor<0x64x128xbf16>, tensor<0x64xf32>, tensor<256x128xbf16>) -> tensor<0x256xf32>
  return %l : tensor<0x256xf32>
}
func.func @expand_0(%idx: tensor<0x64xi32>) -> tensor<0x256xi32> {
  %tok = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<0x64xi32>) -> tensor<0x256xi32>
  return %tok : tensor<0x256xi32>
}
func.func @residual_0(%keys: tensor<0x128xf32>, %pooled: tensor<0x128xf32>) -> tensor<0x128xf32> {
  %r = indexpool.residual %keys, %pooled {pool_size = 4 : i64} : (tensor<0x128xf32>, tensor<0x128xf32>) -> tensor<0x128xf32>
  return %r : tensor<0x128xf32>
}
func.func @reconstruct_0(%pooled: tensor<0x128xf32>) -> tensor<0x128xf32> {
  %k = indexpool.reconstruct %pooled {pool_size = 4 : i64} : (tensor<0x128xf32>) -> tensor<0x128xf32>
  return %k : tensor<0x128xf32>
}
func.func @pool_d0(%k: tensor<8x0xbf16>, %s: tensor<8xf32>) -> (tensor<2x0xbf16>, tensor<2x4xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<8x0xbf16>, tensor<8xf32>) -> (tensor<2x0xbf16>, tensor<2x4xf32>)
  return %p, %w : tensor<2x0xbf16>, tensor<2x4xf32>
}
func.func @select_m0(%q: tensor<0x64x128xbf16>, %w: tensor<0x64xf32>, %keys: tensor<256x128xbf16>) -> tensor<0x64xi32> {
  %t = indexpool.select %q, %w, %keys {k = 16 : i64, pool_size = 4 : i64} : (tensor<0x64x128xbf16>, tensor<0x64xf32>, tensor<256x128xbf16>) -> tensor<0x64xi32>
  return %t : tensor<0x64xi32>
}
func.func @score_h0(%q: tensor<2x0x128xbf16>, %w: tensor<2x0xf32>, %keys: tensor<256x128xbf16>) -> tensor<2x256xf32> {
  %l = indexpool.score %q, %w, %keys : (tensor<2x0x128xbf16>, tensor<2x0xf32>, tensor<256x128xbf16>) -> tensor<2x256xf32>
  return %l : tensor<2x256xf32>
}
func.func @score_d0(%q: tensor<2x4x0xbf16>, %w: tensor<2x4xf32>, %keys: tensor<256x0xbf16>) -> tensor<2x256xf32> {
  %l = indexpool.score %q, %w, %keys : (tensor<2x4x0xbf16>, tensor<2x4xf32>, tensor<256x0xbf16>) -> tensor<2x256xf32>
  return %l : tensor<2x256xf32>
}
func.func @topk_valid_m0(%logits: tensor<0x1024xf32>, %len: tensor<0xi32>) -> (tensor<0x64xf32>, tensor<0x64xi32>) {
  %vals, %idx = indexpool.topk %logits valid(%len) {k = 64 : i64} : (tensor<0x1024xf32>, tensor<0xi32>) -> (tensor<0x64xf32>, tensor<0x64xi32>)
  return %vals, %idx : tensor<0x64xf32>, tensor<0x64xi32>
}
func.func @hadamard3_0(%x: tensor<2x0x128xbf16>) -> tensor<2x0x128xbf16> {
  %y = indexpool.hadamard %x : (tensor<2x0x128xbf16>) -> tensor<2x0x128xbf16>
  return %y : tensor<2x0x128xbf16>
}
func.func @quantize_d0(%x: tensor<4x0xbf16>) -> (tensor<4x0xf8E4M3FN>, tensor<4xf32>) {
  %q, %s = indexpool.quantize %x {pow2_scale} : (tensor<4x0xbf16>) -> (tensor<4x0xf8E4M3FN>, tensor<4xf32>)
  return %q, %s : tensor<4x0xf8E4M3FN>, tensor<4xf32>
}
func.func @compress_d0(%keys: tensor<8x0xbf16>, %scores: tensor<8xf32>) -> (tensor<2x0xf8E4M3FN>, tensor<2xf32>, tensor<2x4xf32>) {
  %q, %scale, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, pow2_scale}
      : (tensor<8x0xbf16>, tensor<8xf32>) -> (tensor<2x0xf8E4M3FN>, tensor<2xf32>, tensor<2x4xf32>)
  return %q, %scale, %w : tensor<2x0xf8E4M3FN>, tensor<2xf32>, tensor<2x4xf32>
}
