// The tensor-core score kernel for sm_90 (indexpool-compile --tensor-cores,
// the default):
// score and select's score part issue mma.sync m16n8k16 on bf16 with f32
// accumulators, and ptxas (CUDA_HOME) accepts every kernel (select's six)
// without spills or a stack frame (test/ptxas_report.py parses ptxas -v).
// With --tensor-cores=false the same functions have no MMA.
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_90 --tensor-cores --emit=ptx -o %t
// RUN: FileCheck %s --check-prefix=SCORE < %t/score_fp8.sm_90.ptx
// RUN: FileCheck %s --check-prefix=SCORE < %t/select_bf16.sm_90.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_90 --no-spills --no-stack %t/score_fp8.sm_90.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_90 --no-spills --no-stack %t/select_bf16.sm_90.ptx | FileCheck %s --check-prefix=SIX
// RUN: rm -rf %t.plain && indexpool-compile %s --chip=sm_90 --tensor-cores=false --emit=ptx -o %t.plain
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain/score_fp8.sm_90.ptx
// MMA on every chip from sm_80, FP8 keys decoded by cvt.rn.f16x2.e4m3x2
// from sm_89 with 16-byte key loads (software before, 8-byte loads: its
// f32 values cost registers); a prefill chunk
// (M = 64, H = 64) is scored by every block (grid y = 1: the keys are read
// once for all query rows), no spills.
// RUN: rm -rf %t.chips && indexpool-compile %s --function=score_m64 --chip=sm_89 --tensor-cores --emit=ptx -o %t.chips
// RUN: indexpool-compile %s --function=score_m64 --chip=sm_120 --tensor-cores --emit=ptx -o %t.chips
// RUN: indexpool-compile %s --function=score_m64 --chip=sm_80 --tensor-cores --emit=ptx -o %t.chips
// RUN: FileCheck %s --check-prefix=HWFP8 < %t.chips/score_m64.sm_89.ptx
// RUN: FileCheck %s --check-prefix=HWFP8 < %t.chips/score_m64.sm_120.ptx
// RUN: FileCheck %s --check-prefix=SWFP8 < %t.chips/score_m64.sm_80.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_89 --no-spills --no-stack %t.chips/score_m64.sm_89.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_80 --no-spills --no-stack %t.chips/score_m64.sm_80.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_120 --no-spills --no-stack %t.chips/score_m64.sm_120.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../Tools/Inputs/eval_sizes.py %t.chips/score_m64.sm_89.json 58 | FileCheck %s --check-prefix=TILES
// An FP8 query takes the e4m3 MMA where the chip runs it natively (sm_89,
// sm_120), whose PTX version --tensor-cores raises to 8.4 (LLVM selects it
// from there).
// RUN: rm -rf %t.fp8 && indexpool-compile %s --function=score_fp8_query --chip=sm_89 --tensor-cores --emit=ptx -o %t.fp8
// RUN: indexpool-compile %s --function=score_fp8_query --chip=sm_120 --tensor-cores --emit=ptx -o %t.fp8
// RUN: FileCheck %s --check-prefix=E4M3 < %t.fp8/score_fp8_query.sm_89.ptx
// RUN: FileCheck %s --check-prefix=E4M3 < %t.fp8/score_fp8_query.sm_120.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_89 --no-spills --no-stack %t.fp8/score_fp8_query.sm_89.ptx | FileCheck %s --check-prefix=ONE
// sm_90 (ptxas expands an e4m3 mma.sync into conversions and f16 MMAs) and
// sm_80 (no e4m3 MMA): the query decoded to bf16 once by a kernel of its
// own (cvt.rn.f16x2.e4m3x2 on sm_90, integer operations on sm_80), then
// the bf16 MMA; two kernels, no spills.
// RUN: indexpool-compile %s --function=score_fp8_query --chip=sm_90 --tensor-cores --emit=ptx -o %t.fp8
// RUN: indexpool-compile %s --function=score_fp8_query --chip=sm_80 --tensor-cores --emit=ptx -o %t.fp8
// RUN: FileCheck %s --check-prefixes=DECODED,HWDECODED < %t.fp8/score_fp8_query.sm_90.ptx
// RUN: FileCheck %s --check-prefixes=DECODED,SWDECODED < %t.fp8/score_fp8_query.sm_80.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_90 --no-spills --no-stack %t.fp8/score_fp8_query.sm_90.ptx | FileCheck %s --check-prefix=TWO
// RUN: python3 %S/../ptxas_report.py --arch=sm_80 --no-spills --no-stack %t.fp8/score_fp8_query.sm_80.ptx | FileCheck %s --check-prefix=TWO
// sm_90a: warpgroup MMAs from shared memory (m64n64k16 on bf16 with FP8
// keys decoded on the way, m64n64k32 on e4m3 for an FP8 query), the async
// proxy fenced before the barrier, 48 KiB of shared memory, no mma.sync,
// no spills; every block still scores all 64 query rows (grid y = 1) and
// refine and select_paged take the same kernel (select: six kernels).
// RUN: rm -rf %t.wg && indexpool-compile %s --function=score_m64 --chip=sm_90a --emit=ptx -o %t.wg
// RUN: indexpool-compile %s --function=score_fp8_query --chip=sm_90a --emit=ptx -o %t.wg
// RUN: indexpool-compile %s --function=select_bf16 --chip=sm_90a --emit=ptx -o %t.wg
// RUN: FileCheck %s --check-prefix=WGMMA < %t.wg/score_m64.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=WGE4M3 < %t.wg/score_fp8_query.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=WGSELECT < %t.wg/select_bf16.sm_90a.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_90a --no-spills --no-stack %t.wg/score_m64.sm_90a.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_90a --no-spills --no-stack %t.wg/score_fp8_query.sm_90a.ptx | FileCheck %s --check-prefix=ONE
// RUN: python3 %S/../ptxas_report.py --arch=sm_90a --no-spills --no-stack %t.wg/select_bf16.sm_90a.ptx | FileCheck %s --check-prefix=SIX
// RUN: python3 %S/../Tools/Inputs/eval_sizes.py %t.wg/score_m64.sm_90a.json 132 | FileCheck %s --check-prefix=TILES
// The benchmark's FP8-query select likewise (bench/gpu/kernels.mlir).
// RUN: indexpool-compile %indexpool_src/bench/gpu/kernels.mlir --function=select_1m_fp8q --chip=sm_90a --emit=ptx -o %t.wg
// RUN: FileCheck %s --check-prefix=WGE4M3 < %t.wg/select_1m_fp8q.sm_90a.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_90a --no-spills --no-stack %t.wg/select_1m_fp8q.sm_90a.ptx | FileCheck %s --check-prefix=SIX

// WGMMA: .target sm_90a
// WGMMA-NOT: mma.sync
// WGMMA: .shared .align 16 .b8 {{[a-z_0-9]+}}[32768];
// WGMMA: .shared .align 16 .b8 {{[a-z_0-9]+}}[16384];
// WGMMA: cvt.rn.f16x2.e4m3x2
// WGMMA: fence.proxy.async.shared::cta
// WGMMA: bar.sync
// WGMMA: wgmma.fence.sync.aligned
// WGMMA-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// WGMMA: wgmma.commit_group.sync.aligned
// WGMMA: wgmma.wait_group.sync.aligned 0
// WGMMA: shfl.sync.bfly.b32
// WGMMA-NOT: mma.sync
// WGE4M3-NOT: cvt.rn.f16x2.e4m3x2
// WGE4M3-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// WGE4M3-NOT: mma.sync
// WGSELECT-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// WGSELECT-NOT: mma.sync

// SCORE: .target sm_90
// SCORE: .entry {{[a-z_0-9]+}}_kernel(
// SCORE-COUNT-4: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SCORE: shfl.sync.bfly.b32
// ONE: kernel {{[a-z_0-9]+}} registers={{[0-9]+}} stack=0 spill_stores=0 spill_loads=0
// ONE-NOT: kernel
// SIX-COUNT-6: kernel {{[a-z_0-9]+}} registers={{[0-9]+}} stack=0 spill_stores=0 spill_loads=0
// SIX-NOT: kernel
// TWO-COUNT-2: kernel {{[a-z_0-9]+}} registers={{[0-9]+}} stack=0 spill_stores=0 spill_loads=0
// TWO-NOT: kernel
// HWFP8: ld.global.v4.b32
// HWFP8: cvt.rn.f16x2.e4m3x2
// HWFP8: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SWFP8-NOT: e4m3x2
// SWFP8: ld.global.v2.b32
// SWFP8: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SWFP8-NOT: e4m3x2
// DECODED-NOT: e4m3.e4m3
// HWDECODED: cvt.rn.f16x2.e4m3x2
// SWDECODED-NOT: e4m3x2
// DECODED: st.global.v4.b32
// DECODED-NOT: e4m3.e4m3
// DECODED: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// DECODED-NOT: e4m3.e4m3
// E4M3: .version {{8\.[4-9]}}
// E4M3-COUNT-4: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// 4096 keys in tiles of 16 rows per warp, every query row in each block.
// TILES: launch score_m64_kernel grid {{[0-9]+}}x1x1
// PLAIN: .entry score_fp8_kernel(
// PLAIN-NOT: mma.sync

func.func @score_fp8(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                     %k: tensor<4099x128xf8E4M3FN>, %s: tensor<4099xf32>) -> tensor<1x4099xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<4099x128xf8E4M3FN>, tensor<4099xf32>) -> tensor<1x4099xf32>
  return %l : tensor<1x4099xf32>
}

func.func @select_bf16(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                       %k: tensor<4096x128xbf16>) -> tensor<1x256xi32> {
  %t = indexpool.select %q, %w, %k {k = 64 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<4096x128xbf16>) -> tensor<1x256xi32>
  return %t : tensor<1x256xi32>
}

func.func @score_m64(%q: tensor<64x64x128xbf16>, %w: tensor<64x64xf32>,
                     %k: tensor<4096x128xf8E4M3FN>, %s: tensor<4096xf32>) -> tensor<64x4096xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<64x64x128xbf16>, tensor<64x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>) -> tensor<64x4096xf32>
  return %l : tensor<64x4096xf32>
}

func.func @score_fp8_query(%q: tensor<1x64x128xf8E4M3FN>, %w: tensor<1x64xf32>,
                           %k: tensor<4096x128xf8E4M3FN>, %s: tensor<4096xf32>) -> tensor<1x4096xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x64x128xf8E4M3FN>, tensor<1x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>) -> tensor<1x4096xf32>
  return %l : tensor<1x4096xf32>
}
