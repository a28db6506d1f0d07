// The score loops' multiply (docs/design.md, "CPU targets"): with the bf16
// pair dot of the --cpu row when bf16 holds the query's and the keys'
// values exactly, else f32 FMAs; with int8-query, i8 keys with the row's
// int8 dot of the query's codes; then --indexpool-dot-instructions makes
// each pair or quad dot the row's instruction.
//
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=znver5 vector-width=16" | FileCheck %s --check-prefix=PAIRS
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=x86-64-v3 vector-width=8" | FileCheck %s --check-prefix=FMA
// RUN: indexpool-opt %s --indexpool-to-loops="vector-width=16" | FileCheck %s --check-prefix=FMA
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=neoverse-v2 vector-width=4" | FileCheck %s --check-prefix=PAIRS4
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=znver5 vector-width=16" --indexpool-dot-instructions=cpu=znver5 | FileCheck %s --check-prefix=X86
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=neoverse-v2 vector-width=4" --indexpool-dot-instructions=cpu=neoverse-v2 | FileCheck %s --check-prefix=ARM
// RUN: not indexpool-opt %s --indexpool-to-loops="cpu=bogus" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=znver5 vector-width=16 int8-query" | FileCheck %s --check-prefix=QUADS
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=znver5 vector-width=16 int8-query" --indexpool-dot-instructions=cpu=znver5 | FileCheck %s --check-prefix=X86Q
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=neoverse-v2 vector-width=4 int8-query" --indexpool-dot-instructions=cpu=neoverse-v2 | FileCheck %s --check-prefix=ARMQ
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=x86-64-v3 vector-width=8 int8-query" | FileCheck %s --check-prefix=NOQUADS

// PAIRS-LABEL: func.func @fp8_keys
// PAIRS: memref.alloc({{.*}}) {alignment = 64 : i64} : memref<?x64x?xbf16>
// PAIRS: vector.contract {{.*}} : vector<16x2xbf16>, vector<16x2xbf16> into vector<16xf32>
// The block of dots transposed in four shuffle stages (ScoreRows.cpp).
// PAIRS: vector.shuffle {{.*}} [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29] : vector<16xf32>, vector<16xf32>
// PAIRS-NOT: vector.transpose
// PAIRS-LABEL: func.func @f32_query
// PAIRS-NOT: vector.contract
// PAIRS: math.fma {{.*}} : vector<16xf32>
// PAIRS-LABEL: func.func @f32_keys
// PAIRS-NOT: vector.contract
// PAIRS: return
// Without int8-query, i8 keys take the exact bf16 pairs.
// PAIRS-LABEL: func.func @i8_keys
// PAIRS: vector.contract {{.*}} : vector<16x2xbf16>, vector<16x2xbf16> into vector<16xf32>

// FMA-LABEL: func.func @fp8_keys
// FMA-NOT: vector.contract
// FMA: math.fma

// PAIRS4-LABEL: func.func @fp8_keys
// PAIRS4: vector.contract {{.*}} : vector<4x2xbf16>, vector<4x2xbf16> into vector<4xf32>

// X86-LABEL: func.func @fp8_keys
// X86-NOT: vector.contract
// X86: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"({{.*}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>

// ARM-LABEL: func.func @fp8_keys
// ARM-NOT: vector.contract
// ARM: llvm.call_intrinsic "llvm.aarch64.neon.bfdot.v4f32.v8bf16"({{.*}}) : (vector<4xf32>, vector<8xbf16>, vector<8xbf16>) -> vector<4xf32>

// UNKNOWN: error: indexpool-to-loops: unknown CPU target 'bogus'; known:

// The query's codes [M, D/4, 4Hp] i8 with a scale and an offset sum per
// head; the keys' bytes zero-extended (stored plus 128), the query's
// sign-extended; the offset taken off and the scale applied per tile.
// FP8 keys keep the exact pairs.
// QUADS-LABEL: func.func @fp8_keys
// QUADS-NOT: vector<16x4xi32>
// QUADS: vector.contract {{.*}} : vector<16x2xbf16>, vector<16x2xbf16> into vector<16xf32>
// QUADS-LABEL: func.func @i8_keys
// QUADS: memref.alloc({{.*}}) {alignment = 64 : i64} : memref<?x32x?xi8>
// QUADS: math.roundeven
// QUADS: arith.muli %{{.*}}, %c128_i32
// QUADS: arith.xori %{{.*}}, %cst{{.*}} : vector<16xi8>
// QUADS: %[[K:.*]] = arith.extui %{{.*}} : vector<16x4xi8> to vector<16x4xi32>
// QUADS: %[[Q:.*]] = arith.extsi %{{.*}} : vector<16x4xi8> to vector<16x4xi32>
// QUADS: vector.contract {{.*}} %[[K]], %[[Q]], %{{.*}} : vector<16x4xi32>, vector<16x4xi32> into vector<16xi32>
// QUADS: arith.subi %{{.*}} : vector<16xi32>
// QUADS: arith.sitofp %{{.*}} : vector<16xi32> to vector<16xf32>

// X86Q-LABEL: func.func @i8_keys
// X86Q-NOT: vector.contract
// X86Q: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"({{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>

// Arm: sdot multiplies signed bytes, so the keys stay as they are (no
// offset, no xor) and both operands are sign-extended.
// ARMQ-LABEL: func.func @i8_keys
// ARMQ-NOT: arith.xori
// ARMQ-NOT: arith.subi {{.*}} : vector<4xi32>
// ARMQ: llvm.call_intrinsic "llvm.aarch64.neon.sdot.v4i32.v16i8"({{.*}}) : (vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>

// AVX2 has no int8 dot: the option is ignored.
// NOQUADS-LABEL: func.func @i8_keys
// NOQUADS-NOT: vector.contract
// NOQUADS: math.fma

func.func @fp8_keys(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                    %k: tensor<256x128xf8E4M3FN>, %s: tensor<256xf32>)
    -> tensor<1x256xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xf8E4M3FN>,
         tensor<256xf32>) -> tensor<1x256xf32>
  return %l : tensor<1x256xf32>
}

// An f32 query: bf16 would round it.
func.func @f32_query(%q: tensor<1x64x128xf32>, %w: tensor<1x64xf32>,
                     %k: tensor<256x128xf8E4M3FN>, %s: tensor<256xf32>)
    -> tensor<1x256xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x64x128xf32>, tensor<1x64xf32>, tensor<256x128xf8E4M3FN>,
         tensor<256xf32>) -> tensor<1x256xf32>
  return %l : tensor<1x256xf32>
}

// f32 keys: the same.
func.func @f32_keys(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                    %k: tensor<256x128xf32>) -> tensor<1x256xf32> {
  %l = indexpool.score %q, %w, %k
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xf32>)
        -> tensor<1x256xf32>
  return %l : tensor<1x256xf32>
}

// i8 keys: bf16 pairs, or quads with int8-query.
func.func @i8_keys(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                   %k: tensor<256x128xi8>, %s: tensor<256xf32>)
    -> tensor<1x256xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xi8>,
         tensor<256xf32>) -> tensor<1x256xf32>
  return %l : tensor<1x256xf32>
}
