// The static performance report (bench/gpu/static_report.py, ESTIMATES: no
// GPU runs) on the kpool compress and a select of Inputs/static-report.mlir
// for sm_90 and sm_80: every kernel spills nothing, and one kernel's
// occupancy, waves and bytes equal the numbers computed below by hand from
// the chip table, so that a change in the model is caught. Registers come
// from ptxas and change with the code: the hand-computed runs fix them with
// --assume-registers. The script's chip table equals lib/Target/Chips.cpp's.
// RUN: python3 %S/Inputs/check_chip_table.py %indexpool_src | FileCheck %s --check-prefix=CHIPS
// RUN: rm -rf %t && indexpool-compile %S/Inputs/static-report.mlir --chip=sm_90 --emit=ptx -o %t/sm_90
// RUN: indexpool-compile %S/Inputs/static-report.mlir --chip=sm_80 --emit=ptx -o %t/sm_80
// RUN: python3 %indexpool_src/bench/gpu/static_report.py %t | FileCheck %s --check-prefix=REPORT
// RUN: python3 %indexpool_src/bench/gpu/static_report.py --assume-registers=64 %t/sm_90 %t/sm_80/compress.sm_80.json | FileCheck %s --check-prefix=R64
// RUN: python3 %indexpool_src/bench/gpu/static_report.py --assume-registers=41 %t/sm_90/compress.sm_90.json | FileCheck %s --check-prefix=R41
// RUN: indexpool-compile %S/Inputs/static-report.mlir --function=select --chip=sm_90 --tensor-cores=false --emit=ptx -o %t/cuda-cores
// RUN: python3 %indexpool_src/bench/gpu/static_report.py --assume-registers=32 %t/cuda-cores/select.sm_90.json | FileCheck %s --check-prefix=R32
// Without nvdisasm (or with --no-sass) the same report, SASS left out with
// a note (test/Target/static-report-sass.mlir checks the SASS).
// RUN: env NVDISASM=%t/no-nvdisasm python3 %indexpool_src/bench/gpu/static_report.py --assume-registers=32 %t/cuda-cores/select.sm_90.json | FileCheck %s --check-prefixes=R32,NOSASS
// RUN: python3 %indexpool_src/bench/gpu/static_report.py --no-sass --assume-registers=32 %t/cuda-cores/select.sm_90.json | FileCheck %s --check-prefixes=R32,NOSASSFLAG
// A cubin cannot be read back: the report says so instead of guessing.
// RUN: indexpool-compile %S/Inputs/static-report.mlir --function=select --chip=sm_90 --emit=cubin -o %t/cubin
// RUN: python3 %indexpool_src/bench/gpu/static_report.py %t/cubin | FileCheck %s --check-prefix=CUBIN

// CHIPS: chip tables agree: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_120

// Every kernel, both chips: no spill (stores/loads in bytes).
// REPORT: Static report: ESTIMATES
// REPORT: ### compress (sm_80, A100 SXM4 80GB: 108 SMs, 2039 GB/s), ESTIMATE
// REPORT: | compress_kernel | 512 | {{[0-9]+}}x1x1 | {{[0-9]+}} | 0/0 |
// REPORT: ### select (sm_80,
// REPORT-COUNT-3: _kernel{{[_0-9]*}} | {{[0-9]+}} | {{[0-9]+}}x1x1 | {{[0-9]+}} | 0/0 |
// REPORT: ### compress (sm_90, H100 SXM5 80GB: 132 SMs, 3350 GB/s), ESTIMATE
// REPORT: | compress_kernel | 512 | {{[0-9]+}}x1x1 | {{[0-9]+}} | 0/0 |
// REPORT: ### select (sm_90,
// REPORT-COUNT-3: _kernel{{[_0-9]*}} | {{[0-9]+}} | {{[0-9]+}}x1x1 | {{[0-9]+}} | 0/0 |
// REPORT-NOT: ###

// compress, T = 65536, D = 128: 512 threads = 16 warps, grid 512 (16384
// pooled rows, 32 per block). Bytes: keys 65536*128*2 = 16777216, scores
// 65536*128*4 = 33554432, bias 4*128*4 = 2048, codes 16384*128 = 2097152,
// scales 16384*4 = 65536; sum 52496384, which is also the function's minimum
// (no temporaries). Floor: 52496384 B / 3350 GB/s = 15.67 us (sm_90),
// / 2039 GB/s = 25.75 us (sm_80).
// At 64 registers: 64*32 = 2048 per warp (a multiple of 256); a quarter SM
// (16384) holds 8 warps, the SM 32, i.e. 2 blocks of 16 warps. Threads allow
// 2048/512 = 4 (sm_90 and sm_80), blocks 32, shared memory (1 KiB reserved
// per block) 228. So 2 blocks (registers), 1024 of 2048 threads = 50%;
// waves 512 / (132*2) = 1.94 on sm_90, 512 / (108*2) = 2.37 on sm_80.
// R64: ### compress (sm_80,
// R64: | compress_kernel | 512 | 512x1x1 | 64 | 0/0 | 0+0 | 2 (registers) | 50.0% | 2.37 | 52496384 | 25.75 |
// R64: bytes: launches 52496384, minimum 52496384 {{.*}} ratio 1.00; bandwidth floor 25.75 us
// R64: ### compress (sm_90,
// R64: | compress_kernel | 512 | 512x1x1 | 64 | 0/0 | 0+0 | 2 (registers) | 50.0% | 1.94 | 52496384 | 15.67 |
// R64: bytes: launches 52496384, minimum 52496384 {{.*}} ratio 1.00; bandwidth floor 15.67 us
// At 41 registers: 1312 per warp rounds up to 1536; 16384 / 1536 = 10 warps
// per quarter, 40 per SM: 2 blocks, 50% (without the rounding 65536 / 1312
// = 49 warps would hold 3).
// R41: | compress_kernel | 512 | 512x1x1 | 41 | 0/0 | 0+0 | 2 (registers) | 50.0% | 1.94 |

// select's scoring kernel on the CUDA cores (--tensor-cores=false; the
// tensor-core one uses no shared memory) on sm_90: 256 threads = 8 warps,
// one block per SM (grid 132), 33024 bytes of static shared memory (ptxas).
// At 32 registers:
// 1024 per warp, 16 warps per quarter, 64 per SM: 8 blocks; threads 2048/256
// = 8; shared memory 33024 + 1024 reserved = 34048 (a multiple of 128), 228
// KiB = 233472 / 34048 = 6 blocks (7 without the reserve). So 6 (shared),
// 6*256 / 2048 = 75%, waves 132 / (132*6) = 0.167. Bytes: query 1*64*128*2 =
// 16384, weights 64*4 = 256, keys 16384*128 = 2097152, scales 16384*4 = 65536,
// its logits (a temporary) 16384*4 = 65536: 2244864, 0.67 us at 3350 GB/s.
// R32: | select_kernel | 256 | 132x1x1 | 32 | 0/0 | 33024+0 | 6 (shared) | 75.0% | 0.167 | 2244864 | 0.67 |
// NOSASS: bytes: launches
// NOSASS-NEXT: {{^$}}
// NOSASS-NEXT: no SASS: NVDISASM={{.*}}no-nvdisasm is not an executable
// NOSASS-NOT: SASS instructions
// NOSASSFLAG: bytes: launches
// NOSASSFLAG-NOT: SASS

// CUBIN: ### select (sm_90,
// CUBIN: skipped: binary is a cubin: ptxas -v reads PTX only (compile with --emit=ptx)
