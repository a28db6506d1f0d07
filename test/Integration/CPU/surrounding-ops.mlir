// indexpool ops inside ordinary tensor code: elementwise arith before and
// after them is lowered too (elementwise -> linalg -> loops) and the whole
// function matches the reference evaluator.
// RUN: indexpool-run %s --function=scaled_scores --random-inputs=3 --verify | FileCheck %s

// CHECK: result #0 (tensor<256x64xf32>): {{.*}} -> ok
func.func @scaled_scores(%k: tensor<1024x64xf32>, %s: tensor<1024xf32>) -> tensor<256x64xf32> {
  %s2 = arith.mulf %s, %s : tensor<1024xf32>
  %p, %w = indexpool.pool %k, %s2 {pool_size = 4 : i64}
      : (tensor<1024x64xf32>, tensor<1024xf32>) -> (tensor<256x64xf32>, tensor<256x4xf32>)
  %r = arith.addf %p, %p : tensor<256x64xf32>
  return %r : tensor<256x64xf32>
}
