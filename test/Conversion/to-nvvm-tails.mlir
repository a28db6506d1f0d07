// Rows whose length D is not a multiple of the vector width end in a masked
// tail; with static shapes the mask is a vector.constant_mask, which
// --indexpool-lower-vector-masks rewrites before the NVVM conversion.
// RUN: indexpool-opt %s --indexpool-to-nvvm="chip=sm_80" | FileCheck %s
// RUN: indexpool-opt %s --indexpool-to-gpu-kernels=chip=sm_80 --indexpool-to-loops --canonicalize | FileCheck %s --check-prefix=MASK
// Such rows are one-thread-per-row loops: a row's state takes up to ~170
// registers, and the kernels declare their block size (.maxntid, which caps
// ptxas at 65536 / block registers), so the configured 512 threads of sm_90
// are capped at 256.
// RUN: indexpool-opt %s --indexpool-configure=chip=sm_90 --indexpool-to-nvvm="chip=sm_90" | FileCheck %s --check-prefix=CONF90
// CONF90: threads in (%c256, %c1, %c1)
// CONF90: .maxntid 256, 1, 1

// MASK-LABEL: func.func @pool_d100
// MASK: vector.constant_mask [4] : vector<8xi1>
// CHECK-LABEL: func.func @pool_d100
// CHECK: gpu.launch_func
// CHECK: gpu.binary @{{[a-z_0-9]+}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_80"
func.func @pool_d100(%keys: tensor<1030x100xbf16>, %scores: tensor<1030x100xf32>, %b: tensor<4x100xf32>)
    -> (tensor<257x100xbf16>, tensor<257x4x100xf32>) {
  %p, %w = indexpool.pool %keys, %scores bias(%b) {pool_size = 4 : i64}
      : (tensor<1030x100xbf16>, tensor<1030x100xf32>, tensor<4x100xf32>) -> (tensor<257x100xbf16>, tensor<257x4x100xf32>)
  return %p, %w : tensor<257x100xbf16>, tensor<257x4x100xf32>
}
