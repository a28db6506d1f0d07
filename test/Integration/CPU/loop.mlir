// indexpool ops in an scf.for, as a decode loop runs them: the reference
// evaluator runs every iteration (the induction variable as a slice offset,
// tensor and index iter_args) and the compiled loop matches it. The loop of
// the serving example is test/Examples/glm5-serving.mlir.
// RUN: indexpool-run %s --function=chunks --random-inputs=21 --verify | FileCheck %s
// RUN: indexpool-run %s --function=chunks --random-inputs=22 --input-shape=0:1280x64 --input-shape=1:1280 --verify --check-bounds | FileCheck %s
// RUN: not indexpool-run %s --function=chunks --random-inputs=23 --input-shape=0:1024x64 --input-shape=1:1000 2>&1 | FileCheck %s --check-prefix=SLICE

// CHECK-COUNT-2: -> ok
// CHECK-NOT: FAILED
// SLICE: indexpool-run: error: tensor.extract_slice at {{.*}}loop.mlir:{{[0-9]+}}:{{[0-9]+}}: dimension 0: the slice [768, +256 x 1) leaves the size 1000

// Pools every chunk of 256 tokens (P = 4) into rows of the result, and keeps
// a running maximum of the pooled chunks.
func.func @chunks(%keys: tensor<?x64xf32>, %scores: tensor<?xf32>)
    -> (tensor<?x64xf32>, tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %t = tensor.dim %keys, %c0 : tensor<?x64xf32>
  %groups = arith.divui %t, %c4 : index
  %n = arith.divui %t, %c256 : index
  %out = tensor.empty(%groups) : tensor<?x64xf32>
  %low = arith.constant dense<-1.0e30> : tensor<64x64xf32>
  %r:3 = scf.for %i = %c0 to %n step %c1
      iter_args(%acc = %out, %max = %low, %row = %c0)
      -> (tensor<?x64xf32>, tensor<64x64xf32>, index) {
    %start = arith.muli %i, %c256 : index
    %k = tensor.extract_slice %keys[%start, 0] [256, 64] [1, 1]
        : tensor<?x64xf32> to tensor<256x64xf32>
    %s = tensor.extract_slice %scores[%start] [256] [1]
        : tensor<?xf32> to tensor<256xf32>
    %pooled, %w = indexpool.pool %k, %s {pool_size = 4 : i64}
        : (tensor<256x64xf32>, tensor<256xf32>)
          -> (tensor<64x64xf32>, tensor<64x4xf32>)
    %acc2 = tensor.insert_slice %pooled into %acc[%row, 0] [64, 64] [1, 1]
        : tensor<64x64xf32> into tensor<?x64xf32>
    %max2 = arith.maximumf %max, %pooled : tensor<64x64xf32>
    %row2 = arith.addi %row, %c64 : index
    scf.yield %acc2, %max2, %row2 : tensor<?x64xf32>, tensor<64x64xf32>, index
  }
  return %r#0, %r#1 : tensor<?x64xf32>, tensor<64x64xf32>
}
