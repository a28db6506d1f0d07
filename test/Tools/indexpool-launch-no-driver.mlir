// Without a CUDA driver, a valid manifest with its binary gets as far as the
// device and stops there: exactly one error line, exit code 1, whether the
// inputs are drawn or read. (On a machine with a driver, the GPU tests of
// indexpool-launch-cuda.mlir run instead.)
// UNSUPPORTED: cuda
//
// RUN: sh -c "indexpool-launch %S/Inputs/launch/expand.json --random-inputs=1 --verify 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=RANDOM --match-full-lines
// RANDOM: indexpool-launch: error: no CUDA driver: libcuda.so.1 not found
// RANDOM-NEXT: rc=1
// RUN: not indexpool-launch %S/Inputs/launch/expand.json --random-inputs=1 --verify 2>&1 | count 1
//
// RUN: indexpool-run %s --function=make_indices --random-inputs=1 --output=@%t.idx.npy
// RUN: sh -c "indexpool-launch %S/Inputs/launch/expand.json --input=@%t.idx.npy --output=@%t.out.npy --benchmark=3 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=NPY --match-full-lines
// NPY: indexpool-launch: error: no CUDA driver: libcuda.so.1 not found
// NPY-NEXT: rc=1
// RUN: not indexpool-launch %S/Inputs/launch/expand.json --input=@%t.idx.npy --output=@%t.out.npy --benchmark=3 2>&1 | count 1
// RUN: not test -e %t.out.npy

func.func @make_indices(%idx: tensor<4x64xi32>) -> tensor<4x64xi32> {
  return %idx : tensor<4x64xi32>
}
