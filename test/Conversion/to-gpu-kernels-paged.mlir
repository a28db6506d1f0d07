// The paged ops as short sequences of GPU kernels (Kernels/PagedKernels.cpp):
// --indexpool-to-gpu-kernels lowers select_paged (scores through the block
// table, then topk and expand) and marks compress_paged and append_paged
// with the chip; one-shot bufferization emits their kernels on the buffers
// it chose, so the pages (and tails) are written in place: the function
// returns its own arguments, with no copy of the pages on the host or the
// device (compress: one kernel; append: the gather, the compress rows and
// the two tails copied from their scratch). Shapes the kernels do not cover (a dynamic
// D) are refused in one line, not run as CPU loops. indexpool-compile
// writes their manifests, which the runtime loads and checks up to the
// device (the fake driver stops at the kernel lookup: it knows only its own
// test kernels).
// RUN: indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels=chip=sm_90 --indexpool-to-loops --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -verify-diagnostics | FileCheck %s
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_90 --function=compress -o %t > /dev/null
// RUN: indexpool-compile %s --chip=sm_90 --function=select -o %t > /dev/null
// RUN: indexpool-compile %s --chip=sm_90 --function=append -o %t > /dev/null
// RUN: indexpool-compile %s --chip=sm_90 --function=append_tokens -o %t > /dev/null
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext not indexpool-launch %t/compress.sm_90.json --random-inputs=1 --verify 2>&1 | FileCheck %s --check-prefix=LOADED -DKERNEL=compress_kernel
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext not indexpool-launch %t/select.sm_90.json --random-inputs=1 --verify 2>&1 | FileCheck %s --check-prefix=LOADED -DKERNEL=select_kernel
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext not indexpool-launch %t/append.sm_90.json --random-inputs=1 --verify 2>&1 | FileCheck %s --check-prefix=LOADED -DKERNEL=append_kernel
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/append.sm_90.json
// RUN: not indexpool-compile %s --chip=sm_90 --function=dynamic_d -o %t 2>&1 | FileCheck %s --check-prefix=COMPILE

// LOADED: indexpool-launch: error: kernel '[[KERNEL]]' is not in the binary
// MANIFEST: "op": "append_paged",
// MANIFEST: "codes": "f8E4M3FN",
// MANIFEST: "page_entries":
// COMPILE: has no GPU kernel for these shapes
// COMPILE: indexpool-compile: error: compiling @dynamic_d for sm_90 failed

// CHECK-LABEL: func.func @compress
// CHECK-SAME: %[[PAGES:[a-z0-9]+]]: memref<2x8448xi8>
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.alloc() {{.*}} : memref<2x8448xi8>
// CHECK-COUNT-1: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return %[[PAGES]]
func.func @compress(%keys: tensor<64x128xbf16>, %scores: tensor<64xf32>,
    %pages: tensor<2x8448xi8>, %slots: tensor<16xi64>) -> tensor<2x8448xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64}
      : (tensor<64x128xbf16>, tensor<64xf32>, tensor<2x8448xi8>,
         tensor<16xi64>) -> tensor<2x8448xi8>
  return %p : tensor<2x8448xi8>
}

// -----

// select_paged: per-row lengths and tails, the score kernel through the
// block table, topk (four kernels), expand.
// CHECK-LABEL: func.func @select
// CHECK-NOT: memref.copy
// CHECK-COUNT-7: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
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
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.alloc() {{.*}} : memref<4x8448xi8>
// CHECK-COUNT-4: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return %arg5, %arg2, %arg3
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

// The token tier's append (pool_size = 1, a dynamic batch): its tails have
// no rows, so nothing is copied back to them (no 1-d view of a [?, 0, D]
// buffer either): the gather and the compress rows only.
// CHECK-LABEL: func.func @append_tokens
// CHECK-NOT: memref.collapse_shape {{.*}}x0x
// CHECK-COUNT-2: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return %arg5, %arg2, %arg3
func.func @append_tokens(%k: tensor<?x1x128xf32>, %s: tensor<?x1xf32>,
    %tk: tensor<?x0x128xf32>, %ts: tensor<?x0xf32>, %len: tensor<?xi32>,
    %pages: tensor<?x33792xi8>, %table: tensor<?x?xi32>)
    -> (tensor<?x33792xi8>, tensor<?x0x128xf32>, tensor<?x0xf32>) {
  %p, %a, %b = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%len)
      into %pages block_table(%table) {pool_size = 1 : i64, page_entries = 256 : i64}
      : (tensor<?x1x128xf32>, tensor<?x1xf32>, tensor<?x0x128xf32>,
         tensor<?x0xf32>, tensor<?xi32>, tensor<?x33792xi8>, tensor<?x?xi32>)
        -> (tensor<?x33792xi8>, tensor<?x0x128xf32>, tensor<?x0xf32>)
  return %p, %a, %b : tensor<?x33792xi8>, tensor<?x0x128xf32>, tensor<?x0xf32>
}

// -----

func.func @dynamic_d(%k: tensor<2x1x?xbf16>, %s: tensor<2x1xf32>,
    %tk: tensor<2x3x?xbf16>, %ts: tensor<2x3xf32>, %len: tensor<2xi32>,
    %pages: tensor<?x?xi8>, %table: tensor<2x2xi32>)
    -> (tensor<?x?xi8>, tensor<2x3x?xbf16>, tensor<2x3xf32>) {
  // expected-error @+1 {{'indexpool.append_paged' has no GPU kernel for these shapes: D is dynamic or not made of power-of-two 16-byte chunks}}
  %p, %a, %b = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%len)
      into %pages block_table(%table) {pool_size = 4 : i64}
      : (tensor<2x1x?xbf16>, tensor<2x1xf32>, tensor<2x3x?xbf16>,
         tensor<2x3xf32>, tensor<2xi32>, tensor<?x?xi8>, tensor<2x2xi32>)
        -> (tensor<?x?xi8>, tensor<2x3x?xbf16>, tensor<2x3xf32>)
  return %p, %a, %b : tensor<?x?xi8>, tensor<2x3x?xbf16>, tensor<2x3xf32>
}
