// --indexpool-to-gpu-kernels refuses the paged ops in one line: they have no
// GPU kernel yet, and the GPU emulator must not run them as CPU loops
// (indexpool-compile refuses them the same way, through the manifest).
// RUN: indexpool-opt %s -split-input-file --indexpool-to-gpu-kernels=chip=sm_90 -verify-diagnostics
// RUN: not indexpool-run %s --function=select --random-inputs=1 --device=gpu-emulator 2>&1 | FileCheck %s --check-prefix=EMULATOR

// EMULATOR: error: 'indexpool.select_paged' has no GPU kernel yet (the paged ops run on the CPU: docs/serving-layout.md)

func.func @compress(%keys: tensor<64x128xbf16>, %scores: tensor<64xf32>,
    %pages: tensor<2x8448xi8>, %slots: tensor<16xi64>) -> tensor<2x8448xi8> {
  // expected-error @+1 {{'indexpool.compress_paged' has no GPU kernel yet (the paged ops run on the CPU: docs/serving-layout.md)}}
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64}
      : (tensor<64x128xbf16>, tensor<64xf32>, tensor<2x8448xi8>,
         tensor<16xi64>) -> tensor<2x8448xi8>
  return %p : tensor<2x8448xi8>
}

// -----

func.func @select(%q: tensor<2x1x4x128xbf16>, %w: tensor<2x1x4xf32>,
    %pages: tensor<4x8448xi8>, %table: tensor<2x2xi32>,
    %len: tensor<2x1xi32>) -> tensor<2x1x35xi32> {
  // expected-error @+1 {{'indexpool.select_paged' has no GPU kernel yet (the paged ops run on the CPU: docs/serving-layout.md)}}
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 8 : i64, pool_size = 4 : i64}
      : (tensor<2x1x4x128xbf16>, tensor<2x1x4xf32>, tensor<4x8448xi8>,
         tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x1x35xi32>
  return %t : tensor<2x1x35xi32>
}

// -----

func.func @append(%k: tensor<2x1x128xbf16>, %s: tensor<2x1xf32>,
    %tk: tensor<2x3x128xbf16>, %ts: tensor<2x3xf32>, %len: tensor<2xi32>,
    %pages: tensor<4x8448xi8>, %table: tensor<2x2xi32>)
    -> (tensor<4x8448xi8>, tensor<2x3x128xbf16>, tensor<2x3xf32>) {
  // expected-error @+1 {{'indexpool.append_paged' has no GPU kernel yet (the paged ops run on the CPU: docs/serving-layout.md)}}
  %p, %a, %b = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%len)
      into %pages block_table(%table) {pool_size = 4 : i64}
      : (tensor<2x1x128xbf16>, tensor<2x1xf32>, tensor<2x3x128xbf16>,
         tensor<2x3xf32>, tensor<2xi32>, tensor<4x8448xi8>, tensor<2x2xi32>)
        -> (tensor<4x8448xi8>, tensor<2x3x128xbf16>, tensor<2x3xf32>)
  return %p, %a, %b : tensor<4x8448xi8>, tensor<2x3x128xbf16>, tensor<2x3xf32>
}
