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
// sm_80 and sm_86 here; sm_89 and sm_90 in every-chip-ada.mlir; sm_90a,
// sm_100 and sm_120 in every-chip-new.mlir (three files, so that each
// stays well inside lit's per-test time limit on a loaded 2-core machine).
// RUN: indexpool-run %S/kernels.mlir --function=compress_bf16 --random-inputs=1 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/kernels.mlir --function=select_fp8 --random-inputs=2 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=3 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=append --random-inputs=4 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/kernels.mlir --function=compress_bf16 --random-inputs=5 --device=gpu-emulator --chip=sm_86 --verify | FileCheck %s --check-prefix=THREE
// RUN: indexpool-run %S/kernels.mlir --function=select_fp8 --random-inputs=6 --device=gpu-emulator --chip=sm_86 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/refine.mlir --function=fp8_scales --random-inputs=7 --device=gpu-emulator --chip=sm_86 --verify | FileCheck %s --check-prefix=ONE
// RUN: indexpool-run %S/../CPU/paged.mlir --function=append --random-inputs=8 --device=gpu-emulator --chip=sm_86 --verify | FileCheck %s --check-prefix=THREE

// ONE: result #0 {{.*}} -> ok
// ONE-NOT: FAILED
// THREE-COUNT-3: result #{{[0-2]}} {{.*}} -> ok
// THREE-NOT: FAILED
