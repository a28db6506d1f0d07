// --indexpool-to-loops: every op becomes buffers + loops with vectors over D;
// --indexpool-to-cpu leaves only the LLVM and OpenMP dialects.
// RUN: indexpool-opt %s --indexpool-to-loops --split-input-file | FileCheck %s
// RUN: indexpool-opt %s --indexpool-to-cpu --split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: not indexpool-opt %s --indexpool-to-loops=vector-width=6 --split-input-file 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not indexpool-opt %s --indexpool-to-loops=vector-width=6 2>&1 | count 1

// WIDTH: vector width must be a power of two from 1 to 64, got 6

// LLVM-NOT: indexpool.
// LLVM-NOT: scf.
// LLVM-NOT: memref.
// LLVM-NOT: vector.
// LLVM: llvm.func @compress
// LLVM: omp.wsloop

// Static D = 128 is a multiple of the vector width: no masked tail.
// The softmax exp is our own polynomial (math.exp would become a libm call),
// its 2^n without conversions (no roundeven, no fptosi before the keys).
// CHECK-LABEL: func.func @compress
// CHECK-NOT: vector.maskedload
// CHECK-NOT: math.exp
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<1024x128xbf16> to memref<1024x128xbf16>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<256x128xf8E4M3FN>
// CHECK: scf.parallel
// CHECK: memref.alloca_scope
// CHECK: vector.load %{{.*}} : memref<1024x128xf32>, vector<8xf32>
// CHECK-NOT: math.roundeven
// CHECK-NOT: arith.fptosi
// CHECK: vector.load %{{.*}} : memref<1024x128xbf16>, vector<8xbf16>
// CHECK: math.fma
// CHECK: vector.shuffle
// CHECK: vector.reduction <maximumf>
// CHECK: vector.store %{{.*}} : memref<256x128xf8E4M3FN>, vector<8xf8E4M3FN>
// CHECK: bufferization.to_tensor %{{.*}} restrict writable
func.func @compress(%keys: tensor<1024x128xbf16>, %scores: tensor<1024x128xf32>, %b: tensor<4x128xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>)
        -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>)
  return %q, %s, %w : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>
}

// -----

// Dynamic D: a vector main loop and a masked tail.
// CHECK-LABEL: func.func @pool_dynamic
// CHECK: memref.dim
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: vector.load
// CHECK: scf.if
// CHECK: vector.create_mask
// CHECK: vector.maskedload
// CHECK: vector.maskedstore
func.func @pool_dynamic(%keys: tensor<?x?xf32>, %scores: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x4xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<?x?xf32>, tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x4xf32>)
  return %p, %w : tensor<?x?xf32>, tensor<?x4xf32>
}

// -----

// select reuses the score, topk and expand loops on temporary buffers.
// CHECK-LABEL: func.func @select
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: scf.while
// CHECK: scf.parallel
// CHECK: bufferization.to_tensor
func.func @select(%q: tensor<1x8x64xbf16>, %w: tensor<1x8xf32>, %k: tensor<?x64xf8E4M3FN>, %s: tensor<?xf32>)
    -> tensor<1x64xi32> {
  %t = indexpool.select %q, %w, %k scales(%s) {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x8x64xbf16>, tensor<1x8xf32>, tensor<?x64xf8E4M3FN>, tensor<?xf32>) -> tensor<1x64xi32>
  return %t : tensor<1x64xi32>
}

// -----

// refine: the gather-score loop (score's row arithmetic on candidate rows,
// read only when in [0, T), NaN otherwise), then the topk and take loops on
// temporary buffers.
// CHECK-LABEL: func.func @refine
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: memref.load %{{.*}} : memref<1x?xi32>
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: math.fma
// CHECK: arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK: scf.while
// CHECK: scf.parallel
// CHECK: bufferization.to_tensor
func.func @refine(%q: tensor<1x8x64xbf16>, %w: tensor<1x8xf32>, %c: tensor<1x?xi32>, %k: tensor<?x64xf8E4M3FN>,
                  %s: tensor<?xf32>) -> tensor<1x16xi32> {
  %t = indexpool.refine %q, %w, %c, %k scales(%s) {k = 16 : i64}
      : (tensor<1x8x64xbf16>, tensor<1x8xf32>, tensor<1x?xi32>, tensor<?x64xf8E4M3FN>, tensor<?xf32>) -> tensor<1x16xi32>
  return %t : tensor<1x16xi32>
}
