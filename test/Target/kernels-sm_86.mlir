// Static checks of the kernels for sm_86: ptxas (CUDA_HOME) accepts every
// kernel of compress, score and select (--emit=cubin runs it); compress is
// ONE kernel that reads keys with 16-byte loads, rotates with warp shuffles
// and converts to FP8 with the integer encoder (no e4m3x2 conversion before sm_89);
// score runs on the tensor cores (mma.sync, FP8 keys decoded in software)
// and reads keys with 16-byte loads, as the CUDA-core kernel
// (--tensor-cores=false) does; compress, score, the six select
// kernels and the unfused (--fuse=false) pool / hadamard / quantize kernels spill no
// register and have no stack frame (test/ptxas_report.py parses ptxas -v).
// RUN: rm -rf %t && indexpool-compile %S/Inputs/kernels.mlir --chip=sm_86 --emit=cubin --fuse=false -o %t
// RUN: test -s %t/compress.sm_86.cubin && test -s %t/score.sm_86.cubin && test -s %t/select.sm_86.cubin && test -s %t/chain.sm_86.cubin
// RUN: indexpool-compile %S/Inputs/kernels.mlir --chip=sm_86 --emit=ptx --fuse=false -o %t
// RUN: FileCheck %s --check-prefix=COMPRESS < %t/compress.sm_86.ptx
// RUN: FileCheck %s --check-prefix=SCORE < %t/score.sm_86.ptx
// RUN: indexpool-compile %S/Inputs/kernels.mlir --function=score --chip=sm_86 --emit=ptx --tensor-cores=false -o %t.cuda
// RUN: FileCheck %s --check-prefix=CUDACORE < %t.cuda/score.sm_86.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_86 --no-spills --no-stack %t.cuda/score.sm_86.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_86 --no-spills --no-stack %t/compress.sm_86.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_86 --no-spills --no-stack %t/score.sm_86.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_86 --no-spills --no-stack %t/select.sm_86.ptx | FileCheck %s --check-prefix=SIX
// RUN: python3 %S/../ptxas_report.py --arch=sm_86 --no-spills --no-stack %t/chain.sm_86.ptx | FileCheck %s --check-prefix=THREE

// COMPRESS: .target sm_86
// COMPRESS: .entry compress_kernel(
// COMPRESS: ld.global.v4.b32
// COMPRESS: shfl.sync.bfly.b32
// COMPRESS-NOT: cvt.rn.satfinite.e4m3x2
// COMPRESS-NOT: .entry
// SCORE: .target sm_86
// SCORE: ld.global.v4.b32
// SCORE-NOT: e4m3x2
// SCORE: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CUDACORE: .target sm_86
// CUDACORE-NOT: mma.sync
// CUDACORE: .shared .align 16
// CUDACORE: ld.global.v4.b32
// CUDACORE-NOT: mma.sync
// ONE: kernel {{[a-z_0-9]+}} registers={{[0-9]+}} stack=0 spill_stores=0 spill_loads=0
// ONE-NOT: kernel
// THREE-COUNT-3: kernel {{[a-z_0-9]+}} registers={{[0-9]+}} stack=0 spill_stores=0 spill_loads=0
// THREE-NOT: kernel
// SIX-COUNT-6: kernel {{[a-z_0-9]+}} registers={{[0-9]+}} stack=0 spill_stores=0 spill_loads=0
// SIX-NOT: kernel
