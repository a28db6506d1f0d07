// The CPU target table (docs/design.md, "CPU targets"): each row's code
// built here with indexpool-compile --target=cpu, another architecture's
// too, and the errors for a name the table lacks or a row this host cannot
// run. The numerics of the x86 rows run in ctest's lit-cpu-* entries (the
// CPU integration tests with -Dcpu=ROW) and below.
//
// Arm (Neoverse V2, and the Armv8-A baseline as an ELF object):
// RUN: rm -rf %t && indexpool-compile %s --target=cpu --cpu=neoverse-v2 --emit=asm -o %t | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=ARM < %t/select.neoverse-v2.s
// RUN: indexpool-compile %s --target=cpu --cpu=aarch64 -o %t
// RUN: llvm-readelf -h %t/select.aarch64.o | FileCheck %s --check-prefix=ELF-ARM
//
// x86: the baseline row (SSE2: no ymm or zmm), the AVX2 row (ymm, no zmm),
// Zen 4 (zmm), each as assembly:
// RUN: indexpool-compile %s --target=cpu --cpu=x86-64 --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=SSE --implicit-check-not=ymm --implicit-check-not=zmm --implicit-check-not=vdpbf16ps < %t/select.x86-64.s
// RUN: indexpool-compile %s --target=cpu --cpu=x86-64-v3 --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=AVX2 --implicit-check-not=zmm --implicit-check-not=vdpbf16ps < %t/select.x86-64-v3.s
// RUN: indexpool-compile %s --target=cpu --cpu=znver4 --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=AVX512 < %t/select.znver4.s
//
// Errors: an unknown name (compile and run), another architecture's row
// and one whose features the host lacks (run), a wrong --emit, a GPU
// option.
// RUN: not indexpool-compile %s --target=cpu --cpu=bogus -o %t 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not indexpool-run %s --function=select --random-inputs=1 --cpu=bogus 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not indexpool-compile %s --target=cpu --emit=ptx -o %t 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not indexpool-compile %s --target=cpu --chip=sm_90 -o %t 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not indexpool-run %s --function=select --random-inputs=1 --device=cuda --cpu=x86-64 2>&1 | FileCheck %s --check-prefix=DEVICE
//
// WROTE: wrote {{.*}}select.neoverse-v2.s
// The select's bf16 query and FP8 keys score with the rows' bf16 pair dot
// where they have one (Neoverse V2: bfdot; Zen 4: vdpbf16ps), with f32
// FMAs elsewhere (the Armv8-A baseline, SSE2, AVX2):
// RUN: indexpool-compile %s --target=cpu --cpu=aarch64 --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=ARM-BASE --implicit-check-not=bfdot < %t/select.aarch64.s
// ARM: bfdot v{{[0-9]+}}.4s, v{{[0-9]+}}.8h, v{{[0-9]+}}.8h
// ARM-BASE: fmla v{{[0-9]+}}.4s
// ELF-ARM: Machine: AArch64
// SSE: mulps
// AVX2: vfmadd{{.*}}ymm
// AVX512: vdpbf16ps {{.*}}zmm
// UNKNOWN: error: {{.*}}unknown CPU target 'bogus'; known: {{.*}}x86-64-v3{{.*}}neoverse-v2
// EMIT: error: --emit must be obj or asm with --target=cpu, got 'ptx'
// CHIP: error: --chip and --threads-per-block are for --target=gpu
// DEVICE: error: --cpu only applies with --device=cpu or gpu-emulator

func.func @select(%q: tensor<1x8x128xbf16>, %w: tensor<1x8xf32>,
                  %keys: tensor<512x128xf8E4M3FN>, %scales: tensor<512xf32>)
    -> tensor<1x64xi32> {
  %idx = indexpool.select %q, %w, %keys scales(%scales)
      {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x8x128xbf16>, tensor<1x8xf32>, tensor<512x128xf8E4M3FN>,
         tensor<512xf32>) -> tensor<1x64xi32>
  return %idx : tensor<1x64xi32>
}
