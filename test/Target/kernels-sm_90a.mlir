// Static checks of the kernels for sm_90a: ptxas (CUDA_HOME) accepts every
// kernel of compress, score and select (--emit=cubin runs it), and compress
// and score read keys with 16-byte vector loads and spill no register
// (test/ptxas_report.py parses ptxas -v). Their stack frames (per-thread
// scratch rows of this first GPU path) are reported, not yet checked.
// RUN: rm -rf %t && indexpool-compile %S/Inputs/kernels.mlir --chip=sm_90a --emit=cubin -o %t
// RUN: test -s %t/compress.sm_90a.cubin && test -s %t/score.sm_90a.cubin && test -s %t/select.sm_90a.cubin
// RUN: indexpool-compile %S/Inputs/kernels.mlir --chip=sm_90a --emit=ptx -o %t
// RUN: FileCheck %s --check-prefix=COMPRESS < %t/compress.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=SCORE < %t/score.sm_90a.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_90a --no-spills %t/compress.sm_90a.ptx | FileCheck %s --check-prefix=REPORT
// RUN: python3 %S/../ptxas_report.py --arch=sm_90a --no-spills %t/score.sm_90a.ptx | FileCheck %s --check-prefix=REPORT

// COMPRESS: .target sm_90a
// COMPRESS: .entry compress_kernel(
// COMPRESS: ld.global.v4.b32
// SCORE: .target sm_90a
// SCORE: ld.global.v4.b32
// REPORT: kernel {{[a-z_0-9]+}} registers={{[0-9]+}} stack={{[0-9]+}} spill_stores=0 spill_loads=0
