// Static checks of the kernels for sm_90a: ptxas (CUDA_HOME) accepts every
// kernel of compress, score and select (--emit=cubin runs it); compress is
// ONE kernel that reads keys with 16-byte loads, rotates with warp shuffles
// and converts to FP8 with cvt.rn.satfinite.e4m3x2.f32;
// score runs on the tensor cores with sm_90a's warpgroup MMA (wgmma from
// shared memory, FP8 keys decoded by cvt.rn.f16x2.e4m3x2 on the way, the
// async-proxy fence before the barrier that publishes them, no mma.sync)
// and reads keys with 16-byte loads, as the CUDA-core kernel
// (--tensor-cores=false) does; compress, score, the six select
// kernels and the unfused (--fuse=false) pool / hadamard / quantize kernels spill no
// register and have no stack frame (test/ptxas_report.py parses ptxas -v).
// RUN: rm -rf %t && indexpool-compile %S/Inputs/kernels.mlir --chip=sm_90a --emit=cubin --fuse=false -o %t
// RUN: test -s %t/compress.sm_90a.cubin && test -s %t/score.sm_90a.cubin && test -s %t/select.sm_90a.cubin && test -s %t/chain.sm_90a.cubin
// RUN: indexpool-compile %S/Inputs/kernels.mlir --chip=sm_90a --emit=ptx --fuse=false -o %t
// RUN: FileCheck %s --check-prefix=COMPRESS < %t/compress.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=SCORE < %t/score.sm_90a.ptx
// RUN: indexpool-compile %S/Inputs/kernels.mlir --function=score --chip=sm_90a --emit=ptx --tensor-cores=false -o %t.cuda
// RUN: FileCheck %s --check-prefix=CUDACORE < %t.cuda/score.sm_90a.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_90a --no-spills --no-stack %t.cuda/score.sm_90a.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_90a --no-spills --no-stack %t/compress.sm_90a.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_90a --no-spills --no-stack %t/score.sm_90a.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_90a --no-spills --no-stack %t/select.sm_90a.ptx | FileCheck %s --check-prefix=SIX
// RUN: python3 %S/../ptxas_report.py --arch=sm_90a --no-spills --no-stack %t/chain.sm_90a.ptx | FileCheck %s --check-prefix=THREE

// COMPRESS: .target sm_90a
// COMPRESS: .entry compress_kernel(
// COMPRESS: ld.global.v4.b32
// COMPRESS: shfl.sync.bfly.b32
// COMPRESS: cvt.rn.satfinite.e4m3x2.f32
// COMPRESS-NOT: .entry
// SCORE: .target sm_90a
// SCORE-NOT: mma.sync
// SCORE: ld.global.v4.b32
// SCORE: cvt.rn.f16x2.e4m3x2
// SCORE: st.shared.v4.b32
// SCORE: fence.proxy.async.shared::cta
// SCORE: bar.sync
// SCORE: wgmma.fence.sync.aligned
// SCORE: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k16.f32.bf16.bf16
// SCORE: wgmma.commit_group.sync.aligned
// SCORE: wgmma.wait_group.sync.aligned 0
// SCORE-NOT: mma.sync
// CUDACORE: .target sm_90a
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
