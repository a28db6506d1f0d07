// The stock Debian mlir-opt loads the dialect from IndexPoolPlugin.so,
// round-trips its ops and runs its verifiers.
// UNSUPPORTED: sanitizers
// RUN: %mlir_opt %s --load-dialect-plugin=%indexpool_libs/IndexPoolPlugin%shlibext --verify-roundtrip | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%indexpool_libs/IndexPoolPlugin%shlibext --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: not %mlir_opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// RUN: %mlir_opt %S/Inputs/invalid-pool.mlir --load-dialect-plugin=%indexpool_libs/IndexPoolPlugin%shlibext --verify-diagnostics

// NOPLUGIN: Dialect `indexpool' not found for custom op 'indexpool.compress'

// CHECK-LABEL: func.func @kpool
// CHECK: indexpool.compress %{{.*}}, %{{.*}} bias(%{{.*}}) {pool_size = 4 : i64, pow2_scale, rotate} : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>)
// CHECK: indexpool.select %{{.*}}, %{{.*}}, %{{.*}} scales(%{{.*}}) {k = 64 : i64, pool_size = 4 : i64}
// GENERIC: "indexpool.compress"
// GENERIC: "indexpool.select"
func.func @kpool(%keys: tensor<1024x128xbf16>, %scores: tensor<1024x128xf32>, %b: tensor<4x128xf32>,
                 %q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>) -> tensor<1x256xi32> {
  %codes, %scale, %pw = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1024x128xbf16>, tensor<1024x128xf32>, tensor<4x128xf32>)
        -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>)
  %tok = indexpool.select %q, %w, %codes scales(%scale) {k = 64 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xf8E4M3FN>, tensor<256xf32>)
        -> tensor<1x256xi32>
  return %tok : tensor<1x256xi32>
}
