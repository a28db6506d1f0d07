// Static checks of the kernels for sm_120: ptxas (CUDA_HOME) accepts every
// kernel of compress, score and select (--emit=cubin runs it), and compress
// and score read keys with 16-byte vector loads and spill no register
// (test/ptxas_report.py parses ptxas -v). Their stack frames (per-thread
// scratch rows of this first GPU path) are reported, not yet checked.
// RUN: rm -rf %t && indexpool-compile %S/Inputs/kernels.mlir --chip=sm_120 --emit=cubin -o %t
// RUN: test -s %t/compress.sm_120.cubin && test -s %t/score.sm_120.cubin && test -s %t/select.sm_120.cubin
// RUN: indexpool-compile %S/Inputs/kernels.mlir --chip=sm_120 --emit=ptx -o %t
// RUN: FileCheck %s --check-prefix=COMPRESS < %t/compress.sm_120.ptx
// RUN: FileCheck %s --check-prefix=SCORE < %t/score.sm_120.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_120 --no-spills %t/compress.sm_120.ptx | FileCheck %s --check-prefix=REPORT
// RUN: python3 %S/../ptxas_report.py --arch=sm_120 --no-spills %t/score.sm_120.ptx | FileCheck %s --check-prefix=REPORT

// COMPRESS: .target sm_120
// COMPRESS: .entry compress_kernel(
// COMPRESS: ld.global.v4.b32
// SCORE: .target sm_120
// SCORE: ld.global.v4.b32
// REPORT: kernel {{[a-z_0-9]+}} registers={{[0-9]+}} stack={{[0-9]+}} spill_stores=0 spill_loads=0
