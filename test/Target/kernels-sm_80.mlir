// Static checks of the kernels for sm_80: ptxas (CUDA_HOME) accepts every
// kernel of compress, score and select (--emit=cubin runs it), and compress
// and score read keys with 16-byte vector loads and spill no register
// (test/ptxas_report.py parses ptxas -v). Their stack frames (per-thread
// scratch rows of this first GPU path) are reported, not yet checked.
// RUN: rm -rf %t && indexpool-compile %S/Inputs/kernels.mlir --chip=sm_80 --emit=cubin -o %t
// RUN: test -s %t/compress.sm_80.cubin && test -s %t/score.sm_80.cubin && test -s %t/select.sm_80.cubin
// RUN: indexpool-compile %S/Inputs/kernels.mlir --chip=sm_80 --emit=ptx -o %t
// RUN: FileCheck %s --check-prefix=COMPRESS < %t/compress.sm_80.ptx
// RUN: FileCheck %s --check-prefix=SCORE < %t/score.sm_80.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_80 --no-spills %t/compress.sm_80.ptx | FileCheck %s --check-prefix=REPORT
// RUN: python3 %S/../ptxas_report.py --arch=sm_80 --no-spills %t/score.sm_80.ptx | FileCheck %s --check-prefix=REPORT

// COMPRESS: .target sm_80
// COMPRESS: .entry compress_kernel(
// COMPRESS: ld.global.v4.b32
// SCORE: .target sm_80
// SCORE: ld.global.v4.b32
// REPORT: kernel {{[a-z_0-9]+}} registers={{[0-9]+}} stack={{[0-9]+}} spill_stores=0 spill_loads=0
