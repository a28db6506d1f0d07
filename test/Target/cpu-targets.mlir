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
// With --int8-query, i8 keys (dense) and i4 keys (paged) score with the
// rows' int8 dot: sdot on Neoverse V2, vpdpbusd on Zen 4; AVX2 has none.
// RUN: indexpool-compile %s --target=cpu --cpu=neoverse-v2 --int8-query --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=ARM-Q < %t/select_i8.neoverse-v2.s
// RUN: FileCheck %s --check-prefix=ARM-Q < %t/select_paged_i4.neoverse-v2.s
// RUN: indexpool-compile %s --target=cpu --cpu=znver4 --int8-query --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=ZEN4-Q < %t/select_i8.znver4.s
// RUN: FileCheck %s --check-prefix=ZEN4-Q < %t/select_paged_i4.znver4.s
// RUN: indexpool-compile %s --target=cpu --cpu=x86-64-v3 --int8-query --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=AVX2 --implicit-check-not=vpdpbusd < %t/select_i8.x86-64-v3.s
// Without it, i8 keys take the exact bf16 pair dot.
// RUN: indexpool-compile %s --target=cpu --cpu=znver4 --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=AVX512 --implicit-check-not=vpdpbusd < %t/select_i8.znver4.s
// ARM-Q: sdot v{{[0-9]+}}.4s, v{{[0-9]+}}.16b, v{{[0-9]+}}.16b
// ZEN4-Q: vpdpbusd {{.*}}zmm
// RUN: not indexpool-run %s --function=select_i8 --random-inputs=1 --int8-query --verify 2>&1 | FileCheck %s --check-prefix=Q-VERIFY
// RUN: not indexpool-run %s --function=select_i8 --random-inputs=1 --int8-query --device=gpu-emulator 2>&1 | FileCheck %s --check-prefix=Q-DEVICE
// RUN: not indexpool-compile %s --chip=sm_90 --int8-query -o %t 2>&1 | FileCheck %s --check-prefix=Q-GPU
// Q-GPU: error: --int8-query is for --target=cpu
// Q-VERIFY: error: --int8-query cannot be combined with --verify
// Q-DEVICE: error: --int8-query only applies with --device=cpu
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

func.func @select_i8(%q: tensor<1x8x128xbf16>, %w: tensor<1x8xf32>,
                     %keys: tensor<512x128xi8>, %scales: tensor<512xf32>)
    -> tensor<1x64xi32> {
  %idx = indexpool.select %q, %w, %keys scales(%scales)
      {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x8x128xbf16>, tensor<1x8xf32>, tensor<512x128xi8>,
         tensor<512xf32>) -> tensor<1x64xi32>
  return %idx : tensor<1x64xi32>
}

func.func @select_paged_i4(%q: tensor<3x2x4x128xbf16>, %w: tensor<3x2x4xf32>,
    %pages: tensor<16x4352xi8>, %table: tensor<3x4xi32>,
    %len: tensor<3x2xi32>) -> tensor<3x2x35xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 8 : i64, pool_size = 4 : i64, codes = i4}
      : (tensor<3x2x4x128xbf16>, tensor<3x2x4xf32>, tensor<16x4352xi8>,
         tensor<3x4xi32>, tensor<3x2xi32>) -> tensor<3x2x35xi32>
  return %t : tensor<3x2x35xi32>
}
