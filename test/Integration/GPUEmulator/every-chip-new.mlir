// Every chip of the target table (lib/Target/Chips.cpp) runs the kernels
// of a decode step in the GPU emulator, checked against the float64
// reference: compress (ONE kernel; FP8 encoded by cvt.rn.satfinite from
// sm_89, in software before), select (the score on the tensor cores:
// mma.sync, FP8 keys decoded by cvt.rn.f16x2.e4m3x2 from sm_89 and in
// software before; wgmma on sm_90a; then the segmented top-k and expand),
// refine (the same score over candidates; select_paged's takes the same
// kernel: mma-ops.mlir, score-wgmma.mlir) and append_paged. The chips
// differ only in these instructions and in their SM counts (the
// grid-stride waves).
// This file: sm_90a, sm_100 and sm_120; the older chips in every-chip.mlir.
// RUN: indexpool-run %S/kernels.mlir --function=compress_bf16 --random-inputs=17 --device=gpu-emulator --chip=sm_90a --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/kernels.mlir --function=select_fp8 --random-inputs=18 --device=gpu-emulator --chip=sm_90a --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=19 --device=gpu-emulator --chip=sm_90a --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=append --random-inputs=20 --device=gpu-emulator --chip=sm_90a --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/kernels.mlir --function=compress_bf16 --random-inputs=21 --device=gpu-emulator --chip=sm_100 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/kernels.mlir --function=select_fp8 --random-inputs=22 --device=gpu-emulator --chip=sm_100 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=23 --device=gpu-emulator --chip=sm_100 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=append --random-inputs=24 --device=gpu-emulator --chip=sm_100 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/kernels.mlir --function=compress_bf16 --random-inputs=25 --device=gpu-emulator --chip=sm_120 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/kernels.mlir --function=select_fp8 --random-inputs=26 --device=gpu-emulator --chip=sm_120 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=27 --device=gpu-emulator --chip=sm_120 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=append --random-inputs=28 --device=gpu-emulator --chip=sm_120 --verify | FileCheck %s --check-prefix=THREE

// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED
// THREE-COUNT-3: result #{{[0-2]}} {{.*}} -> ok
// THREE-NOT: FAILED
