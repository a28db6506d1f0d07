// FP8 keys into the bf16 pair dot by byte tables (docs/design.md, "CPU
// targets"): on a row with the 128-byte table lookup (CpuTarget::
// byteTable128, vpermi2b) at 16 lanes, every 64 codes of a key row are two
// byte lookups in constant 128-byte tables (gathers from two globals whose
// bytes are the bf16 of each code below 0x80, from the reference's FP8
// decoder), the sign bit on all but NaN, and two interleaves into 32 bf16
// each; --indexpool-dot-instructions makes each gather one vpermi2b of the
// table's two halves as constant vectors. Elsewhere (8 lanes, a row without
// the lookup, D not a multiple of 64, a query bf16 does not hold) the codes
// go through f32 lanes as before. The paged ops are lowered by one-shot
// bufferization.
//
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=znver4 vector-width=16" --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=TABLES
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=znver4 vector-width=16" --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --indexpool-dot-instructions=cpu=znver4 | FileCheck %s --check-prefix=VPERM
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=znver4 vector-width=16" --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --indexpool-dot-instructions=cpu=x86-64-v4 | FileCheck %s --check-prefix=KEPT
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=znver4 vector-width=8" --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=LANES --implicit-check-not=vector.gather --implicit-check-not=memref.global
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=x86-64-v4 vector-width=16" --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=LANES --implicit-check-not=vector.gather --implicit-check-not=memref.global

// The tables: +0, then the subnormals 2^-9 (0x3B00), 2^-8 (0x3B80),
// 3 * 2^-9 (0x3BC0), ..., 448 (0x43E0) and NaN (0x7FC0) last.
// TABLES-DAG: memref.global "private" constant @__indexpool_f8E4M3FN_bf16_low : memref<128xi8> = dense<"0x000080C0002040608090A0B0C0D0E0F0{{[0-9A-F]*}}E0C0"> {alignment = 64 : i64}
// TABLES-DAG: memref.global "private" constant @__indexpool_f8E4M3FN_bf16_high : memref<128xi8> = dense<"0x003B3B3B3C3C3C3C{{[0-9A-F]*}}43437F"> {alignment = 64 : i64}

// TABLES-LABEL: func.func @select
// TABLES: %[[CODES:.*]] = arith.bitcast %{{.*}} : vector<64xf8E4M3FN> to vector<64xi8>
// TABLES: %[[MAG:.*]] = arith.andi %[[CODES]], %{{.*}} : vector<64xi8>
// TABLES: memref.get_global @__indexpool_f8E4M3FN_bf16_high : memref<128xi8>
// TABLES: %[[HIGH:.*]] = vector.gather {{.*}} : memref<128xi8>, vector<64xi32>, vector<64xi1>, vector<64xi8> into vector<64xi8>
// TABLES: memref.get_global @__indexpool_f8E4M3FN_bf16_low : memref<128xi8>
// TABLES: %[[LOW:.*]] = vector.gather {{.*}} into vector<64xi8>
// TABLES: %[[NAN:.*]] = arith.cmpi eq, %[[MAG]], %{{.*}} : vector<64xi8>
// TABLES: %[[SIGN:.*]] = arith.andi %[[CODES]], %{{.*}} : vector<64xi8>
// TABLES: %[[SIGNED:.*]] = arith.ori %[[HIGH]], %[[SIGN]] : vector<64xi8>
// TABLES: %[[HIGH2:.*]] = arith.select %[[NAN]], %[[HIGH]], %[[SIGNED]] : vector<64xi1>, vector<64xi8>
// TABLES: %[[PAIRS:.*]] = vector.shuffle %[[LOW]], %[[HIGH2]] [0, 64, 1, 65, 2, 66,
// TABLES: %[[BF16:.*]] = vector.bitcast %[[PAIRS]] : vector<64xi8> to vector<32xbf16>
// TABLES: vector.store %[[BF16]], %{{.*}} : memref<16x128xbf16>, vector<32xbf16>
// TABLES: vector.shuffle %[[LOW]], %[[HIGH2]] [32, 96, 33, 97,
// TABLES: vector.contract {{.*}} : vector<16x2xbf16>, vector<16x2xbf16> into vector<16xf32>
// TABLES-LABEL: func.func @refine
// TABLES: vector.gather
// TABLES-LABEL: func.func @select_paged
// TABLES: vector.load %{{.*}} : memref<16x8448xi8>, vector<64xi8>
// TABLES: memref.get_global @__indexpool_f8E4M3FN_bf16_high
// TABLES: vector.gather
// TABLES-LABEL: func.func @d96
// TABLES-NOT: vector.gather
// TABLES: vector.contract
// TABLES-LABEL: func.func @f32_query
// TABLES-NOT: vector.gather
// TABLES: math.fma

// VPERM-NOT: memref.global
// VPERM-LABEL: func.func @select
// VPERM-NOT: vector.gather
// The high bytes' halves (0x00, 0x3B, ... 0x43, 0x7F), the low bytes'
// (0x00, 0x00, 0x80, 0xC0, ... 0xE0, 0xC0), both indexed by the codes'
// magnitudes.
// VPERM: %[[HI0:.*]] = arith.constant dense<[0, 59, 59, 59, 60, {{.*}}]> : vector<64xi8>
// VPERM: %[[HI1:.*]] = arith.constant dense<[64, {{.*}}, 67, 127]> : vector<64xi8>
// VPERM: llvm.call_intrinsic "llvm.x86.avx512.vpermi2var.qi.512"(%[[HI0]], %[[MAG:[0-9]+]], %[[HI1]]) : (vector<64xi8>, vector<64xi8>, vector<64xi8>) -> vector<64xi8>
// VPERM: %[[LO0:.*]] = arith.constant dense<[0, 0, -128, -64, 0, 32, {{.*}}]> : vector<64xi8>
// VPERM: %[[LO1:.*]] = arith.constant dense<[0, 16, {{.*}}, -32, -64]> : vector<64xi8>
// VPERM: llvm.call_intrinsic "llvm.x86.avx512.vpermi2var.qi.512"(%[[LO0]], %[[MAG]], %[[LO1]])
// VPERM-LABEL: func.func @select_paged
// VPERM-NOT: vector.gather
// VPERM: llvm.call_intrinsic "llvm.x86.avx512.vpermi2var.qi.512"

// A row without the lookup keeps the gathers and their tables.
// KEPT: memref.global "private" constant @__indexpool_f8E4M3FN_bf16
// KEPT-LABEL: func.func @select
// KEPT-NOT: vpermi2var
// KEPT: vector.gather

// LANES-LABEL: func.func @select
// LANES: arith.bitcast %{{.*}} : vector<{{8|16}}xf8E4M3FN> to vector<{{8|16}}xi8>
// LANES-LABEL: func.func @refine
// LANES-LABEL: func.func @select_paged
// LANES-LABEL: func.func @d96
// LANES-LABEL: func.func @f32_query

func.func @select(%q: tensor<1x16x128xbf16>, %w: tensor<1x16xf32>,
                  %keys: tensor<256x128xf8E4M3FN>, %scales: tensor<256xf32>)
    -> tensor<1x64xi32> {
  %idx = indexpool.select %q, %w, %keys scales(%scales)
      {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x16x128xbf16>, tensor<1x16xf32>, tensor<256x128xf8E4M3FN>,
         tensor<256xf32>) -> tensor<1x64xi32>
  return %idx : tensor<1x64xi32>
}

func.func @refine(%q: tensor<2x16x128xbf16>, %w: tensor<2x16xf32>,
                  %c: tensor<2x64xi32>, %k: tensor<512x128xf8E4M3FN>,
                  %s: tensor<512xf32>) -> tensor<2x16xi32> {
  %t = indexpool.refine %q, %w, %c, %k scales(%s) {k = 16 : i64}
      : (tensor<2x16x128xbf16>, tensor<2x16xf32>, tensor<2x64xi32>,
         tensor<512x128xf8E4M3FN>, tensor<512xf32>) -> tensor<2x16xi32>
  return %t : tensor<2x16xi32>
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

// D = 96: no whole number of 64 codes.
func.func @d96(%q: tensor<1x16x96xbf16>, %w: tensor<1x16xf32>,
               %keys: tensor<256x96xf8E4M3FN>, %scales: tensor<256xf32>)
    -> tensor<1x64xi32> {
  %idx = indexpool.select %q, %w, %keys scales(%scales)
      {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x16x96xbf16>, tensor<1x16xf32>, tensor<256x96xf8E4M3FN>,
         tensor<256xf32>) -> tensor<1x64xi32>
  return %idx : tensor<1x64xi32>
}

// An f32 query: f32 FMAs, the keys decoded to f32.
func.func @f32_query(%q: tensor<1x16x128xf32>, %w: tensor<1x16xf32>,
                     %keys: tensor<256x128xf8E4M3FN>, %scales: tensor<256xf32>)
    -> tensor<1x64xi32> {
  %idx = indexpool.select %q, %w, %keys scales(%scales)
      {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x16x128xf32>, tensor<1x16xf32>, tensor<256x128xf8E4M3FN>,
         tensor<256xf32>) -> tensor<1x64xi32>
  return %idx : tensor<1x64xi32>
}
