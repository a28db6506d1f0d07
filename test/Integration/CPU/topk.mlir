// topk / expand on the CPU against the float64 reference: values and indices
// exactly equal (the logits are inputs), valid lengths, k larger than the
// valid columns (-inf / -1 padding), negative indices in expand.
// RUN: indexpool-run %s --function=topk_plain --random-inputs=1 --verify | FileCheck %s --check-prefix=PLAIN
// RUN: indexpool-run %s --function=topk_valid --random-inputs=2 --verify | FileCheck %s --check-prefix=VALID
// RUN: indexpool-run %s --function=topk_dynamic --random-inputs=3 --input-shape=0:5x300 --input-shape=1:5 --verify | FileCheck %s --check-prefix=DYN
// RUN: indexpool-run %s --function=expand --random-inputs=4 --verify | FileCheck %s --check-prefix=EXPAND
// RUN: indexpool-run %s --function=expand_dynamic --random-inputs=5 --input-shape=0:3x10 --verify | FileCheck %s --check-prefix=EXPDYN

// PLAIN: result #0 (tensor<4x64xf32>): max_abs_err=0 {{.*}} -> ok
// PLAIN-NEXT: result #1 (tensor<4x64xi32>): max_abs_err=0 {{.*}} -> ok
func.func @topk_plain(%l: tensor<4x1000xf32>) -> (tensor<4x64xf32>, tensor<4x64xi32>) {
  %v, %i = indexpool.topk %l {k = 64 : i64} : (tensor<4x1000xf32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
  return %v, %i : tensor<4x64xf32>, tensor<4x64xi32>
}

// Valid lengths are drawn in [0, 100], so many rows have fewer than 64.
// VALID: result #0 (tensor<8x64xf32>): max_abs_err=0 {{.*}} -> ok
// VALID-NEXT: result #1 (tensor<8x64xi32>): max_abs_err=0 {{.*}} -> ok
func.func @topk_valid(%l: tensor<8x100xf32>, %len: tensor<8xi32>) -> (tensor<8x64xf32>, tensor<8x64xi32>) {
  %v, %i = indexpool.topk %l valid(%len) {k = 64 : i64}
      : (tensor<8x100xf32>, tensor<8xi32>) -> (tensor<8x64xf32>, tensor<8x64xi32>)
  return %v, %i : tensor<8x64xf32>, tensor<8x64xi32>
}

// DYN: result #0 (tensor<5x200xf32>): max_abs_err=0 {{.*}} -> ok
// DYN-NEXT: result #1 (tensor<5x200xi32>): max_abs_err=0 {{.*}} -> ok
func.func @topk_dynamic(%l: tensor<?x?xf32>, %len: tensor<?xi32>) -> (tensor<?x200xf32>, tensor<?x200xi32>) {
  %v, %i = indexpool.topk %l valid(%len) {k = 200 : i64}
      : (tensor<?x?xf32>, tensor<?xi32>) -> (tensor<?x200xf32>, tensor<?x200xi32>)
  return %v, %i : tensor<?x200xf32>, tensor<?x200xi32>
}

// EXPAND: result #0 (tensor<4x256xi32>): max_abs_err=0 {{.*}} -> ok
func.func @expand(%i: tensor<4x64xi32>) -> tensor<4x256xi32> {
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<4x64xi32>) -> tensor<4x256xi32>
  return %t : tensor<4x256xi32>
}

// EXPDYN: result #0 (tensor<3x640xi32>): max_abs_err=0 {{.*}} -> ok
func.func @expand_dynamic(%i: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %t = indexpool.expand %i {pool_size = 64 : i64} : (tensor<?x?xi32>) -> tensor<?x?xi32>
  return %t : tensor<?x?xi32>
}
