// indexpool.score on the CPU against the float64 reference: float, FP8 and
// INT8 keys (with scales), f32 / bf16 / f8 queries, static and dynamic.
// RUN: indexpool-run %s --function=bf16 --random-inputs=1 --verify | FileCheck %s --check-prefix=BF16
// RUN: indexpool-run %s --function=f8_keys --random-inputs=2 --verify | FileCheck %s --check-prefix=F8
// RUN: indexpool-run %s --function=i8_dynamic --random-inputs=3 --input-shape=0:3x4x100 --input-shape=1:3x4 --input-shape=2:500x100 --input-shape=3:500 --verify | FileCheck %s --check-prefix=I8
// RUN: indexpool-run %s --function=f8_query_f16_keys --random-inputs=4 --verify | FileCheck %s --check-prefix=F8Q
// RUN: indexpool-run %s --function=rows_tail --random-inputs=5 --input-shape=2:1003x40 --verify | FileCheck %s --check-prefix=TAIL

// BF16: result #0 (tensor<2x1000xf32>): {{.*}} normwise_rel_err={{.*}} -> ok
func.func @bf16(%q: tensor<2x16x128xbf16>, %w: tensor<2x16xf32>, %k: tensor<1000x128xbf16>) -> tensor<2x1000xf32> {
  %l = indexpool.score %q, %w, %k : (tensor<2x16x128xbf16>, tensor<2x16xf32>, tensor<1000x128xbf16>) -> tensor<2x1000xf32>
  return %l : tensor<2x1000xf32>
}

// F8: result #0 (tensor<1x4096xf32>): {{.*}} -> ok
func.func @f8_keys(%q: tensor<1x64x128xf32>, %w: tensor<1x64xf32>, %k: tensor<4096x128xf8E4M3FN>, %s: tensor<4096xf32>)
    -> tensor<1x4096xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x64x128xf32>, tensor<1x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>) -> tensor<1x4096xf32>
  return %l : tensor<1x4096xf32>
}

// I8: result #0 (tensor<3x500xf32>): {{.*}} -> ok
func.func @i8_dynamic(%q: tensor<?x?x?xf16>, %w: tensor<?x?xf32>, %k: tensor<?x?xi8>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<?x?x?xf16>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x?xf32>
  return %l : tensor<?x?xf32>
}

// F8Q: result #0 (tensor<1x300xf32>): {{.*}} -> ok
func.func @f8_query_f16_keys(%q: tensor<1x8x64xf8E4M3FN>, %w: tensor<1x8xf32>, %k: tensor<300x64xf16>) -> tensor<1x300xf32> {
  %l = indexpool.score %q, %w, %k : (tensor<1x8x64xf8E4M3FN>, tensor<1x8xf32>, tensor<300x64xf16>) -> tensor<1x300xf32>
  return %l : tensor<1x300xf32>
}

// Key rows are scored 4 at a time: N = 1003 leaves a block of 3, D = 40 a
// masked tail of every row.
// TAIL: result #0 (tensor<3x1003xf32>): {{.*}} -> ok
func.func @rows_tail(%q: tensor<3x5x40xf32>, %w: tensor<3x5xf32>, %k: tensor<?x40xbf16>) -> tensor<3x?xf32> {
  %l = indexpool.score %q, %w, %k : (tensor<3x5x40xf32>, tensor<3x5xf32>, tensor<?x40xbf16>) -> tensor<3x?xf32>
  return %l : tensor<3x?xf32>
}
