// The paged ops on the CPU path (docs/serving-layout.md).
// --indexpool-to-loops leaves them, recording its loop options on them; the
// one-shot bufferization that follows emits their loops on the buffers it
// chose (IndexPoolToLoops/BufferizePaged.cpp): compress_paged and
// append_paged write each group's bytes from one stack scope per parallel
// row straight into the pages (and append_paged its tails) when nothing
// reads the old ones after the op, a function argument or a loop's
// iter_arg, and into a copy only where something does; select_paged
// flattens its query rows, scores kScoreRows entries per parallel item into
// a logits temporary, then runs topk, expand and the tail. --indexpool-to-cpu
// leaves only the LLVM and OpenMP dialects, and a decode loop's iterations
// free the stack scratch they allocate.
// RUN: indexpool-opt %s --indexpool-to-loops --split-input-file | FileCheck %s --check-prefix=LOOPS
// RUN: indexpool-opt %s --convert-elementwise-to-linalg --indexpool-to-loops --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --split-input-file | FileCheck %s
// RUN: indexpool-opt %s --indexpool-to-cpu --split-input-file | FileCheck %s --check-prefix=LLVM

// LOOPS-LABEL: func.func @compress
// LOOPS: indexpool.compress_paged {{.*}} {indexpool.stack_scopes = true, indexpool.vector_width = 8 : i64, pool_size = 4 : i64}
// CHECK-LABEL: func.func @compress
// CHECK-SAME: %[[PAGES:[a-z0-9]+]]: memref<2x8448xi8>
// CHECK-NOT: memref.copy
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloca_scope
// CHECK: memref.alloca() {alignment = 32 : i64} : memref<1x128xf8E4M3FN>
// CHECK: scf.if
// CHECK: arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: memref.store %{{.*}}, %[[PAGES]][{{.*}}] : memref<2x8448xi8>
// CHECK-NOT: memref.copy
// CHECK: return %[[PAGES]] : memref<2x8448xi8>
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

// The old pages are returned too: the new ones are written into a copy.
// CHECK-LABEL: func.func @compress_and_keep
// CHECK-SAME: %[[PAGES:[a-z0-9]+]]: memref<2x8448xi8>
// CHECK: %[[COPY:.*]] = memref.alloc() {{.*}} : memref<2x8448xi8>
// CHECK: memref.copy %[[PAGES]], %[[COPY]]
// CHECK: memref.store %{{.*}}, %[[COPY]][{{.*}}] : memref<2x8448xi8>
// CHECK: return %[[COPY]], %[[PAGES]]
func.func @compress_and_keep(%keys: tensor<64x128xbf16>, %scores: tensor<64xf32>,
    %pages: tensor<2x8448xi8>, %slots: tensor<16xi64>)
    -> (tensor<2x8448xi8>, tensor<2x8448xi8>) {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64}
      : (tensor<64x128xbf16>, tensor<64xf32>, tensor<2x8448xi8>,
         tensor<16xi64>) -> tensor<2x8448xi8>
  return %p, %pages : tensor<2x8448xi8>, tensor<2x8448xi8>
}

// -----

// CHECK-LABEL: func.func @select
// CHECK-NOT: indexpool.
// CHECK: %[[TOKENS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x1x35xi32>
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : memref<2x1x4x128xbf16> into memref<2x4x128xbf16>
// CHECK: memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?xf32>
// CHECK: memref.alloca_scope
// CHECK-NEXT: memref.alloca() {alignment = 32 : i64} : memref<8x128xf32>
// CHECK: arith.bitcast %{{.*}} : vector<8xi8> to vector<8xf8E4M3FN>
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
// CHECK: vector.store %{{.*}} : memref<2x35xi32>, vector<4xi32>
// CHECK: return %[[TOKENS]] : memref<2x1x35xi32>
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
// CHECK-SAME: %[[TK:[a-z0-9]+]]: memref<2x3x128xbf16>, %[[TS:[a-z0-9]+]]: memref<2x3xf32>
// CHECK-SAME: %[[PAGES:[a-z0-9]+]]: memref<4x8448xi8>
// CHECK-NOT: memref.copy
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloca_scope
// CHECK-NEXT: memref.alloca() {alignment = 32 : i64} : memref<4x128xbf16>
// CHECK-NEXT: memref.alloca() {alignment = 32 : i64} : memref<4xf32>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[PAGES]][{{.*}}] : memref<4x8448xi8>
// CHECK-NOT: memref.copy
// CHECK: return %[[PAGES]], %[[TK]], %[[TS]]
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

// -----

// A decode loop: the pages, tails and lengths are iter_args, updated in
// place (never copied: only the step's key row is, into a contiguous
// buffer); B = 1 folds the append's parallel loop into the loop body, whose
// iterations each restore the stack.
// CHECK-LABEL: func.func @decode
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %arg5, %{{.*}} = %arg2, %{{.*}} = %arg3, %{{.*}} = %arg4)
// CHECK-NOT: memref.copy {{.*}} to memref<4x8448xi8>
// CHECK-NOT: memref.copy {{.*}} to memref<1x3x128xbf16>
// CHECK-NOT: memref.copy {{.*}} to memref<1x3xf32>
// CHECK-NOT: memref.copy {{.*}} to memref<1xi32>
// CHECK: scf.yield
// LLVM-LABEL: llvm.func @decode
// LLVM: llvm.intr.stacksave
// LLVM: llvm.alloca
// LLVM: llvm.intr.stackrestore
func.func @decode(%k: tensor<?x1x1x128xbf16>, %s: tensor<?x1x1xf32>,
    %tk: tensor<1x3x128xbf16>, %ts: tensor<1x3xf32>, %len: tensor<1xi32>,
    %pages: tensor<4x8448xi8>, %table: tensor<1x4xi32>)
    -> (tensor<4x8448xi8>, tensor<1x3x128xbf16>, tensor<1x3xf32>,
        tensor<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant dense<1> : tensor<1xi32>
  %steps = tensor.dim %k, %c0 : tensor<?x1x1x128xbf16>
  %r:4 = scf.for %i = %c0 to %steps step %c1
      iter_args(%p = %pages, %a = %tk, %b = %ts, %l = %len)
      -> (tensor<4x8448xi8>, tensor<1x3x128xbf16>, tensor<1x3xf32>,
          tensor<1xi32>) {
    %ki = tensor.extract_slice %k[%i, 0, 0, 0] [1, 1, 1, 128] [1, 1, 1, 1]
        : tensor<?x1x1x128xbf16> to tensor<1x1x128xbf16>
    %si = tensor.extract_slice %s[%i, 0, 0] [1, 1, 1] [1, 1, 1]
        : tensor<?x1x1xf32> to tensor<1x1xf32>
    %p2, %a2, %b2 = indexpool.append_paged %ki, %si tail(%a, %b) lengths(%l)
        into %p block_table(%table) {pool_size = 4 : i64}
        : (tensor<1x1x128xbf16>, tensor<1x1xf32>, tensor<1x3x128xbf16>,
           tensor<1x3xf32>, tensor<1xi32>, tensor<4x8448xi8>, tensor<1x4xi32>)
          -> (tensor<4x8448xi8>, tensor<1x3x128xbf16>, tensor<1x3xf32>)
    %l2 = arith.addi %l, %one : tensor<1xi32>
    scf.yield %p2, %a2, %b2, %l2
        : tensor<4x8448xi8>, tensor<1x3x128xbf16>, tensor<1x3xf32>,
          tensor<1xi32>
  }
  return %r#0, %r#1, %r#2, %r#3
      : tensor<4x8448xi8>, tensor<1x3x128xbf16>, tensor<1x3xf32>, tensor<1xi32>
}
