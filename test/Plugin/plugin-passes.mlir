// The stock Debian mlir-opt runs IndexPool's passes and pipelines from the
// same IndexPoolPlugin.so (--load-pass-plugin; passes a plugin registers are
// named in --pass-pipeline, as mlir-opt parses its flags before loading
// plugins): --indexpool-fuse turns pool + quantize into compress, and
// --indexpool-to-cpu lowers the function to the LLVM dialect.
// UNSUPPORTED: sanitizers
// RUN: %mlir_opt %s --load-dialect-plugin=%indexpool_libs/IndexPoolPlugin%shlibext --load-pass-plugin=%indexpool_libs/IndexPoolPlugin%shlibext --pass-pipeline="builtin.module(func.func(indexpool-fuse))" | FileCheck %s --check-prefix=FUSE
// RUN: %mlir_opt %s --load-dialect-plugin=%indexpool_libs/IndexPoolPlugin%shlibext --load-pass-plugin=%indexpool_libs/IndexPoolPlugin%shlibext --pass-pipeline="builtin.module(indexpool-to-cpu)" | FileCheck %s --check-prefix=CPU
// RUN: not %mlir_opt %s --load-dialect-plugin=%indexpool_libs/IndexPoolPlugin%shlibext --pass-pipeline="builtin.module(indexpool-to-cpu)" 2>&1 | FileCheck %s --check-prefix=NOPASSES

// FUSE-LABEL: func.func @compress_per_token
// FUSE-NOT: indexpool.pool
// FUSE: indexpool.compress %{{.*}}, %{{.*}} {pool_size = 4 : i64, pow2_scale}
// FUSE-NOT: indexpool.quantize
// CPU: llvm.func @compress_per_token
// CPU-NOT: indexpool.
// NOPASSES: 'indexpool-to-cpu' does not refer to a registered pass or pass pipeline
func.func @compress_per_token(%keys: tensor<64x128xbf16>, %scores: tensor<64xf32>)
    -> (tensor<16x128xf8E4M3FN>, tensor<16xf32>) {
  %pooled, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<64x128xbf16>, tensor<64xf32>) -> (tensor<16x128xbf16>, tensor<16x4xf32>)
  %q, %s = indexpool.quantize %pooled {pow2_scale}
      : (tensor<16x128xbf16>) -> (tensor<16x128xf8E4M3FN>, tensor<16xf32>)
  return %q, %s : tensor<16x128xf8E4M3FN>, tensor<16xf32>
}
