// The score loops' multiply (docs/design.md, "CPU targets"): with the bf16
// pair dot of the --cpu row when bf16 holds the query's and the keys'
// values exactly, else f32 FMAs; then --indexpool-pair-dot-instructions
// makes each pair dot the row's instruction.
//
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=znver5 vector-width=16" | FileCheck %s --check-prefix=PAIRS
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=x86-64-v3 vector-width=8" | FileCheck %s --check-prefix=FMA
// RUN: indexpool-opt %s --indexpool-to-loops="vector-width=16" | FileCheck %s --check-prefix=FMA
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=neoverse-v2 vector-width=4" | FileCheck %s --check-prefix=PAIRS4
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=znver5 vector-width=16" --indexpool-pair-dot-instructions=cpu=znver5 | FileCheck %s --check-prefix=X86
// RUN: indexpool-opt %s --indexpool-to-loops="cpu=neoverse-v2 vector-width=4" --indexpool-pair-dot-instructions=cpu=neoverse-v2 | FileCheck %s --check-prefix=ARM
// RUN: not indexpool-opt %s --indexpool-to-loops="cpu=bogus" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// PAIRS-LABEL: func.func @fp8_keys
// PAIRS: memref.alloc({{.*}}) {alignment = 64 : i64} : memref<?x64x?xbf16>
// PAIRS: vector.contract {{.*}} : vector<16x2xbf16>, vector<16x2xbf16> into vector<16xf32>
// PAIRS: vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// PAIRS-LABEL: func.func @f32_query
// PAIRS-NOT: vector.contract
// PAIRS: math.fma {{.*}} : vector<16xf32>
// PAIRS-LABEL: func.func @f32_keys
// PAIRS-NOT: vector.contract
// PAIRS: return

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
