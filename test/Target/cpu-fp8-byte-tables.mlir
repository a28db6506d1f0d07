// FP8 keys decoded to bf16 by byte tables on the CPU target rows with the
// 128-byte table lookup (docs/design.md, "CPU targets"; CpuTarget::
// byteTable128): select, refine_paged and select_paged over f8E4M3FN keys
// with a bf16 query, built with indexpool-compile --target=cpu. Zen 4 and
// Sapphire Rapids (AVX512_VBMI) look the codes up with vpermi2b (LLVM may
// write it vpermt2b, the same instruction with the other source
// overwritten) and interleave the bytes with vpermt2b / vpermi2b; AVX-512
// without VBMI (x86-64-v4), AVX2 and D = 96 (no whole number of 64 codes)
// have none of them.
//
// RUN: rm -rf %t && indexpool-compile %s --target=cpu --cpu=znver4 --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=VBMI < %t/select.znver4.s
// RUN: FileCheck %s --check-prefix=VBMI < %t/select_paged.znver4.s
// RUN: FileCheck %s --check-prefix=VBMI < %t/refine_paged.znver4.s
// RUN: FileCheck %s --check-prefix=NONE --implicit-check-not=vpermi2b --implicit-check-not=vpermt2b < %t/select_d96.znver4.s
// RUN: indexpool-compile %s --target=cpu --cpu=sapphirerapids --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=VBMI < %t/select.sapphirerapids.s
// RUN: indexpool-compile %s --target=cpu --cpu=x86-64-v4 --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=NONE --implicit-check-not=vpermi2b --implicit-check-not=vpermt2b < %t/select.x86-64-v4.s
// RUN: FileCheck %s --check-prefix=NONE --implicit-check-not=vpermi2b --implicit-check-not=vpermt2b < %t/select_paged.x86-64-v4.s
// RUN: indexpool-compile %s --target=cpu --cpu=x86-64-v3 --emit=asm -o %t
// RUN: FileCheck %s --check-prefix=NONE --implicit-check-not=vpermi2b --implicit-check-not=vpermt2b < %t/select.x86-64-v3.s
// RUN: FileCheck %s --check-prefix=NONE --implicit-check-not=vpermi2b --implicit-check-not=vpermt2b < %t/select_paged.x86-64-v3.s
// RUN: FileCheck %s --check-prefix=NONE --implicit-check-not=vpermi2b --implicit-check-not=vpermt2b < %t/refine_paged.x86-64-v3.s
//
// VBMI: vperm{{[it]}}2b {{.*}}zmm
// VBMI: vdpbf16ps {{.*}}zmm
// NONE: .text

func.func @select(%q: tensor<1x8x128xbf16>, %w: tensor<1x8xf32>,
                  %keys: tensor<512x128xf8E4M3FN>, %scales: tensor<512xf32>)
    -> tensor<1x64xi32> {
  %idx = indexpool.select %q, %w, %keys scales(%scales)
      {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x8x128xbf16>, tensor<1x8xf32>, tensor<512x128xf8E4M3FN>,
         tensor<512xf32>) -> tensor<1x64xi32>
  return %idx : tensor<1x64xi32>
}

func.func @select_d96(%q: tensor<1x8x96xbf16>, %w: tensor<1x8xf32>,
                      %keys: tensor<512x96xf8E4M3FN>, %scales: tensor<512xf32>)
    -> tensor<1x64xi32> {
  %idx = indexpool.select %q, %w, %keys scales(%scales)
      {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x8x96xbf16>, tensor<1x8xf32>, tensor<512x96xf8E4M3FN>,
         tensor<512xf32>) -> tensor<1x64xi32>
  return %idx : tensor<1x64xi32>
}

func.func @select_paged(%q: tensor<3x2x4x128xbf16>, %w: tensor<3x2x4xf32>,
    %pages: tensor<16x8448xi8>, %table: tensor<3x4xi32>,
    %len: tensor<3x2xi32>) -> tensor<3x2x35xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 8 : i64, pool_size = 4 : i64}
      : (tensor<3x2x4x128xbf16>, tensor<3x2x4xf32>, tensor<16x8448xi8>,
         tensor<3x4xi32>, tensor<3x2xi32>) -> tensor<3x2x35xi32>
  return %t : tensor<3x2x35xi32>
}

func.func @refine_paged(%q: tensor<1x2x8x128xbf16>, %w: tensor<1x2x8xf32>,
    %cand: tensor<1x2x40xi32>, %tier: tensor<4x8448xi8>,
    %table: tensor<1x4xi32>, %len: tensor<1x2xi32>) -> tensor<1x2x8xi32> {
  %t = indexpool.refine_paged %q, %w, %cand pages(%tier)
      block_table(%table) lengths(%len) {k = 8 : i64}
      : (tensor<1x2x8x128xbf16>, tensor<1x2x8xf32>, tensor<1x2x40xi32>,
         tensor<4x8448xi8>, tensor<1x4xi32>, tensor<1x2xi32>)
        -> tensor<1x2x8xi32>
  return %t : tensor<1x2x8xi32>
}
