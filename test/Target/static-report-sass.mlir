// The SASS columns of the static report (bench/gpu/static_report.py,
// ESTIMATES from static code, no GPU runs): ptxas's cubin for each chip,
// disassembled by nvdisasm (scripts/get-nvdisasm.sh fetches CUDA 11.8's).
// Structural facts only, as the counts change with the code: the score of a
// bf16 query (H = 64, D = 128) over FP8 keys has HMMA on the tensor cores
// (--tensor-cores) on sm_80 and sm_90 and none on the CUDA cores
// (--tensor-cores=false); each streams the keys in a loop whose global loads
// and instructions per 16 B are found. select's scoring kernel
// (Inputs/static-report.mlir) likewise. sm_90a: HGMMA (wgmma) instead.
// sm_120: a note, the rest unchanged.
// REQUIRES: nvdisasm
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_80 --tensor-cores --emit=ptx -o %t/mma
// RUN: indexpool-compile %s --chip=sm_90 --tensor-cores --emit=ptx -o %t/mma
// RUN: indexpool-compile %s --chip=sm_80 --tensor-cores=false --emit=ptx -o %t/plain
// RUN: indexpool-compile %s --chip=sm_90 --tensor-cores=false --emit=ptx -o %t/plain
// RUN: indexpool-compile %S/Inputs/static-report.mlir --function=select --chip=sm_90 --emit=ptx -o %t/select
// RUN: indexpool-compile %s --chip=sm_120 --tensor-cores --emit=ptx -o %t/sm_120
// RUN: indexpool-compile %s --chip=sm_90a --tensor-cores --emit=ptx -o %t/wgmma
// RUN: python3 %indexpool_src/bench/gpu/static_report.py --json %t/wgmma | FileCheck %s --check-prefix=HGMMA
// RUN: python3 %indexpool_src/bench/gpu/static_report.py %t/mma | FileCheck %s --check-prefix=MMA
// RUN: python3 %indexpool_src/bench/gpu/static_report.py --json %t/mma | FileCheck %s --check-prefix=HMMA
// RUN: python3 %indexpool_src/bench/gpu/static_report.py %t/plain | FileCheck %s --check-prefix=LOOP
// RUN: python3 %indexpool_src/bench/gpu/static_report.py --json %t/plain | FileCheck %s --check-prefix=PLAIN
// RUN: python3 %indexpool_src/bench/gpu/static_report.py %t/select | FileCheck %s --check-prefix=SELECT
// RUN: python3 %indexpool_src/bench/gpu/static_report.py %t/sm_120 | FileCheck %s --check-prefix=%if nvdisasm-sm90 %{SM120%} %else %{SM120-NEW%}

// Columns: kernel | SASS instructions (undecoded) | LDG | LDS+STS | MMA |
// FFMA/FMUL/FADD | cvt | SHFL | int | loop instructions | loop B/warp
// iteration | loop instructions/16 B. Tensor cores: global loads, MMA,
// FP8 conversions on sm_90 (F2FP; sm_80 has none: integer code) and a
// loop that loads; a ratio >= 1 since a load takes at most 16 B per lane.
// MMA: ### score_fp8 (sm_80,
// MMA: SASS per kernel, ESTIMATE
// MMA: | score_fp8_kernel | {{[1-9][0-9]*}} ({{[0-9]+}}) | {{[1-9][0-9]*}} | {{[0-9]+}} | {{[1-9][0-9]*}} | {{[0-9]+}} | {{[0-9]+}} | {{[0-9]+}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*\.[0-9][0-9]}} |
// MMA: ### score_fp8 (sm_90,
// MMA: SASS per kernel, ESTIMATE
// MMA: | score_fp8_kernel | {{[1-9][0-9]*}} ({{[0-9]+}}) | {{[1-9][0-9]*}} | {{[0-9]+}} | {{[1-9][0-9]*}} | {{[0-9]+}} | {{[1-9][0-9]*}} | {{[0-9]+}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*\.[0-9][0-9]}} |

// The MMA is HMMA (bf16 m16n8k16) on both chips.
// HMMA: "chip": "sm_80"
// HMMA: "kernel": "score_fp8_kernel"
// HMMA: "HMMA": {{[1-9][0-9]*}}
// HMMA: "chip": "sm_90"
// HMMA: "kernel": "score_fp8_kernel"
// HMMA: "HMMA": {{[1-9][0-9]*}}

// sm_90a: warpgroup MMAs (HGMMA), no HMMA; 48 KiB of shared memory.
// HGMMA: "chip": "sm_90a"
// HGMMA: "kernel": "score_fp8_kernel"
// HGMMA: "static_shared": 49152
// HGMMA-NOT: "HMMA"
// HGMMA: "HGMMA": {{[1-9][0-9]*}}
// HGMMA-NOT: "HMMA"

// CUDA cores: FFMA and no MMA of any kind (HMMA, IMMA, HGMMA, ...).
// PLAIN: "chip": "sm_80"
// PLAIN: "kernel": "score_fp8_kernel"
// PLAIN: "mma": 0
// PLAIN-NOT: MMA"
// PLAIN: "FFMA": {{[1-9][0-9]*}}
// PLAIN-NOT: MMA"
// PLAIN: "chip": "sm_90"
// PLAIN: "kernel": "score_fp8_kernel"
// PLAIN: "mma": 0
// PLAIN-NOT: MMA"
// PLAIN: "FFMA": {{[1-9][0-9]*}}
// PLAIN-NOT: MMA"
// LOOP: ### score_fp8 (sm_80,
// LOOP: | score_fp8_kernel | {{[1-9][0-9]*}} ({{[0-9]+}}) | {{[1-9][0-9]*}} | {{[0-9]+}} | 0 | {{[1-9][0-9]*}} | {{[0-9]+}} | {{[0-9]+}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*\.[0-9][0-9]}} |
// LOOP: ### score_fp8 (sm_90,
// LOOP: | score_fp8_kernel | {{[1-9][0-9]*}} ({{[0-9]+}}) | {{[1-9][0-9]*}} | {{[0-9]+}} | 0 | {{[1-9][0-9]*}} | {{[0-9]+}} | {{[0-9]+}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*\.[0-9][0-9]}} |

// select: its scoring kernel on the tensor cores, the others without MMA.
// SELECT: ### select (sm_90,
// SELECT: SASS per kernel, ESTIMATE
// SELECT: | select_kernel | {{[1-9][0-9]*}} ({{[0-9]+}}) | {{[1-9][0-9]*}} | {{[0-9]+}} | {{[1-9][0-9]*}} |{{.*}}| {{[1-9][0-9]*}} | {{[1-9][0-9]*}} | {{[1-9][0-9]*\.[0-9][0-9]}} |
// SELECT-COUNT-5: | select_kernel_{{[0-9]}} | {{[1-9][0-9]*}} ({{[0-9]+}}) | {{[0-9]+}} | {{[0-9]+}} | 0 |

// sm_120: the ptxas table as always, then the note (nvdisasm before 12.8).
// SM120: ### score_fp8 (sm_120,
// SM120: | score_fp8_kernel | {{[0-9]+}} | {{[0-9]+}}x1x1 | {{[0-9]+}} | 0/0 |
// SM120: bytes: launches
// SM120-NEXT: {{^$}}
// SM120-NEXT: no SASS (nvdisasm {{1[12]\.[0-9]+}} knows up to sm_90)
// SM120-NEW: ### score_fp8 (sm_120,
// SM120-NEW: SASS per kernel, ESTIMATE
// SM120-NEW: | score_fp8_kernel | {{[1-9][0-9]*}} ({{[0-9]+}}) |

func.func @score_fp8(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                     %k: tensor<16384x128xf8E4M3FN>, %s: tensor<16384xf32>) -> tensor<1x16384xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<16384x128xf8E4M3FN>, tensor<16384xf32>)
        -> tensor<1x16384xf32>
  return %l : tensor<1x16384xf32>
}
