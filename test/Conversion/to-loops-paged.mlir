// --indexpool-to-loops on the paged ops (docs/serving-layout.md):
// compress_paged and append_paged copy the pages and write each group's
// bytes from one stack scope per parallel row; select_paged flattens its
// query rows, scores kScoreRows entries per parallel item into a logits
// temporary, then runs topk, expand and the tail. --indexpool-to-cpu leaves
// only the LLVM and OpenMP dialects.
// RUN: indexpool-opt %s --indexpool-to-loops --split-input-file | FileCheck %s
// RUN: indexpool-opt %s --indexpool-to-cpu --split-input-file | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @compress
// CHECK-NOT: indexpool.
// CHECK: memref.copy %{{.*}} : memref<2x8448xi8> to memref<2x8448xi8>
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloca_scope
// CHECK: memref.alloca() {alignment = 32 : i64} : memref<1x128xf8E4M3FN>
// CHECK: scf.if
// CHECK: arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: memref.store %{{.*}} : memref<2x8448xi8>
// CHECK: bufferization.to_tensor %{{.*}} restrict writable : memref<2x8448xi8>
// LLVM-LABEL: llvm.func @compress
// LLVM-NOT: indexpool.
// LLVM-NOT: scf.
func.func @compress(%keys: tensor<64x128xbf16>, %scores: tensor<64xf32>,
    %pages: tensor<2x8448xi8>, %slots: tensor<16xi64>) -> tensor<2x8448xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64}
      : (tensor<64x128xbf16>, tensor<64xf32>, tensor<2x8448xi8>,
         tensor<16xi64>) -> tensor<2x8448xi8>
  return %p : tensor<2x8448xi8>
}

// -----

// CHECK-LABEL: func.func @select
// CHECK-NOT: indexpool.
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : memref<2x1x4x128xbf16> into memref<2x4x128xbf16>
// CHECK: memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?xf32>
// CHECK: memref.alloca_scope
// CHECK-NEXT: memref.alloca() {alignment = 32 : i64} : memref<4x128xf32>
// CHECK: arith.bitcast %{{.*}} : vector<8xi8> to vector<8xf8E4M3FN>
// CHECK: vector.reduction <add>
// CHECK: vector.store %{{.*}} : memref<2x35xi32>, vector<4xi32>
// CHECK: bufferization.to_tensor %{{.*}} restrict writable : memref<2x1x35xi32>
// LLVM-LABEL: llvm.func @select
// LLVM-NOT: indexpool.
// LLVM-NOT: scf.
func.func @select(%q: tensor<2x1x4x128xbf16>, %w: tensor<2x1x4xf32>,
    %pages: tensor<4x8448xi8>, %table: tensor<2x2xi32>,
    %len: tensor<2x1xi32>) -> tensor<2x1x35xi32> {
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 8 : i64, pool_size = 4 : i64}
      : (tensor<2x1x4x128xbf16>, tensor<2x1x4xf32>, tensor<4x8448xi8>,
         tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x1x35xi32>
  return %t : tensor<2x1x35xi32>
}

// -----

// CHECK-LABEL: func.func @append
// CHECK-NOT: indexpool.
// CHECK: memref.copy %{{.*}} : memref<4x8448xi8> to memref<4x8448xi8>
// CHECK: memref.copy %{{.*}} : memref<2x3x128xbf16> to memref<2x3x128xbf16>
// CHECK: memref.copy %{{.*}} : memref<2x3xf32> to memref<2x3xf32>
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloca_scope
// CHECK-NEXT: memref.alloca() {alignment = 32 : i64} : memref<4x128xbf16>
// CHECK-NEXT: memref.alloca() {alignment = 32 : i64} : memref<4xf32>
// CHECK: scf.for
// CHECK: memref.store %{{.*}} : memref<4x8448xi8>
// LLVM-LABEL: llvm.func @append
// LLVM-NOT: indexpool.
// LLVM-NOT: scf.
func.func @append(%k: tensor<2x1x128xbf16>, %s: tensor<2x1xf32>,
    %tk: tensor<2x3x128xbf16>, %ts: tensor<2x3xf32>, %len: tensor<2xi32>,
    %pages: tensor<4x8448xi8>, %table: tensor<2x2xi32>)
    -> (tensor<4x8448xi8>, tensor<2x3x128xbf16>, tensor<2x3xf32>) {
  %p, %a, %b = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%len)
      into %pages block_table(%table) {pool_size = 4 : i64}
      : (tensor<2x1x128xbf16>, tensor<2x1xf32>, tensor<2x3x128xbf16>,
         tensor<2x3xf32>, tensor<2xi32>, tensor<4x8448xi8>, tensor<2x2xi32>)
        -> (tensor<4x8448xi8>, tensor<2x3x128xbf16>, tensor<2x3xf32>)
  return %p, %a, %b : tensor<4x8448xi8>, tensor<2x3x128xbf16>, tensor<2x3xf32>
}
