// --indexpool-to-gpu-kernels gives the paged ops short sequences of kernels
// (Kernels/PagedKernels.cpp): the pages are copied into the result by a
// kernel, not a host memref.copy; select_paged scores through the block
// table, then topk and expand. Shapes the kernels do not cover (a dynamic
// D) are refused in one line, not run as CPU loops. indexpool-compile
// writes their manifests, which the runtime loads and checks up to the
// device (the fake driver stops at the kernel lookup: it knows only its own
// test kernels).
// RUN: indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels=chip=sm_90 -verify-diagnostics | FileCheck %s
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_90 --function=compress -o %t > /dev/null
// RUN: indexpool-compile %s --chip=sm_90 --function=select -o %t > /dev/null
// RUN: indexpool-compile %s --chip=sm_90 --function=append -o %t > /dev/null
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
// CHECK-NOT: memref.copy
// CHECK-COUNT-2: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
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
// CHECK-NOT: memref.copy
// CHECK-COUNT-4: gpu.launch
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
// CHECK-COUNT-3: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
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
