// A launch whose grid CUDA cannot run is a compile error at the op, naming
// the dimension and the limit: never a wrapped or clamped grid, never a
// manifest the runtime then rejects.
// 70000 query rows are 70000 blocks in y (at most 65535).
// RUN: not indexpool-compile %s --chip=sm_90 --function=score_many -o %t 2>&1 | FileCheck %s --check-prefix=Y
// 2^40 rows of one element, 256 rows per block, one block per tile (no
// launch configuration: --threads-per-block): 2^32 blocks in x.
// RUN: not indexpool-compile %s --chip=sm_90 --function=rows_2_40 --threads-per-block=256 -o %t 2>&1 | FileCheck %s --check-prefix=X
// The chip's configuration strides one wave of blocks over the tiles
// (grid = grid_stride: the device's SMs x 8 blocks of 256 threads, e.g.
// 132 x 8 on an H100 SXM), which fits.
// RUN: indexpool-compile %s --chip=sm_90 --function=rows_2_40 -o %t.stride
// RUN: python3 %S/Inputs/eval_sizes.py %t.stride/rows_2_40.sm_90.json 132 | FileCheck %s --check-prefix=STRIDE
// The GPU emulator refuses the same launch with the same message.
// RUN: not indexpool-run %s --function=score_many --random-inputs=1 --device=gpu-emulator --chip=sm_90 2>&1 | FileCheck %s --check-prefix=EMU
// The same ops compile where the grid fits.
// RUN: indexpool-compile %s --chip=sm_90 --function=score_fits -o %t > /dev/null
// --keep-going: both refusals, each after its diagnostic, the third
// function written, exit status 1.
// RUN: rm -rf %t.all && not indexpool-compile %s --chip=sm_90 --threads-per-block=256 --keep-going -o %t.all > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=KEEP < %t.err && FileCheck %s --check-prefix=KEPT < %t.out
// RUN: test -s %t.all/score_fits.sm_90.ptx && not test -e %t.all/score_many.sm_90.ptx
// KEEP: error: the GPU kernel of this op needs 70000 blocks in grid dimension y
// KEEP-NEXT: error: @score_many: compiling @score_many for sm_90 failed
// KEEP-NEXT: {{.*}}error: the GPU kernel of this op needs 4294967296 blocks in grid dimension x
// KEEP-NEXT: error: @rows_2_40: compiling @rows_2_40 for sm_90 failed
// KEEP-NEXT: indexpool-compile: error: 2 of 3 functions failed (--keep-going): @score_many, @rows_2_40
// KEPT: wrote {{.*}}score_fits.sm_90.ptx

// Y: indexpool-compile-grid.mlir:[[# @LINE + 8]]:8: error: the GPU kernel of this op needs 70000 blocks in grid dimension y, beyond CUDA's limit of 65535: split the op into smaller ones
// Y: indexpool-compile: error: compiling @score_many for sm_90 failed
// EMU: indexpool-compile-grid.mlir:[[# @LINE + 6]]:8: error: the GPU kernel of this op needs 70000 blocks in grid dimension y, beyond CUDA's limit of 65535: split the op into smaller ones
// STRIDE: launch {{.*}} grid 1056x1x1
// X: indexpool-compile-grid.mlir:[[# @LINE + 8]]:8: error: the GPU kernel of this op needs 4294967296 blocks in grid dimension x, beyond CUDA's limit of 2147483647
// X: indexpool-compile: error: compiling @rows_2_40 for sm_90 failed

func.func @score_many(%q: tensor<70000x1x16xbf16>, %w: tensor<70000x1xf32>, %keys: tensor<256x16xbf16>) -> tensor<70000x256xf32> {
  %l = indexpool.score %q, %w, %keys : (tensor<70000x1x16xbf16>, tensor<70000x1xf32>, tensor<256x16xbf16>) -> tensor<70000x256xf32>
  return %l : tensor<70000x256xf32>
}
func.func @rows_2_40(%q: tensor<1099511627776x1xi8>, %s: tensor<1099511627776xf32>) -> tensor<1099511627776x1xf32> {
  %x = indexpool.dequantize %q, %s : (tensor<1099511627776x1xi8>, tensor<1099511627776xf32>) -> tensor<1099511627776x1xf32>
  return %x : tensor<1099511627776x1xf32>
}
func.func @score_fits(%q: tensor<65535x1x16xbf16>, %w: tensor<65535x1xf32>, %keys: tensor<256x16xbf16>) -> tensor<65535x256xf32> {
  %l = indexpool.score %q, %w, %keys : (tensor<65535x1x16xbf16>, tensor<65535x1xf32>, tensor<256x16xbf16>) -> tensor<65535x256xf32>
  return %l : tensor<65535x256xf32>
}
