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
// sm_89 and sm_90 here; sm_80 and sm_86 in every-chip.mlir; sm_90a,
// sm_100 and sm_120 in every-chip-new.mlir (three files, so that each
// stays well inside lit's per-test time limit on a loaded 2-core machine).
// RUN: indexpool-run %S/kernels.mlir --function=compress_bf16 --random-inputs=9 --device=gpu-emulator --chip=sm_89 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/kernels.mlir --function=select_fp8 --random-inputs=10 --device=gpu-emulator --chip=sm_89 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=11 --device=gpu-emulator --chip=sm_89 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=append --random-inputs=12 --device=gpu-emulator --chip=sm_89 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/kernels.mlir --function=compress_bf16 --random-inputs=13 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/kernels.mlir --function=select_fp8 --random-inputs=14 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=15 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=append --random-inputs=16 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=THREE

// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED
// THREE-COUNT-3: result #{{[0-2]}} {{.*}} -> ok
// THREE-NOT: FAILED
