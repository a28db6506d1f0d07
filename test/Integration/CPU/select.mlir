// indexpool.select on the CPU against the float64 reference: token indices
// equal except for near-tie swaps of pools whose logits agree to 1e-5.
// RUN: indexpool-run %s --function=fp8_valid --random-inputs=1 --verify | FileCheck %s --check-prefix=FP8
// RUN: indexpool-run %s --function=bf16_plain --random-inputs=2 --verify | FileCheck %s --check-prefix=BF16
// RUN: indexpool-run %s --function=i8_dynamic --random-inputs=3 --input-shape=0:2x8x64 --input-shape=1:2x8 --input-shape=2:700x64 --input-shape=3:700 --input-shape=4:2 --verify | FileCheck %s --check-prefix=DYN

// FP8: result #0 (tensor<2x2048xi32>): {{.*}} near_tie_swaps={{[0-9]+}} -> ok
func.func @fp8_valid(%q: tensor<2x64x128xbf16>, %w: tensor<2x64xf32>, %k: tensor<4096x128xf8E4M3FN>,
                     %s: tensor<4096xf32>, %len: tensor<2xi32>) -> tensor<2x2048xi32> {
  %t = indexpool.select %q, %w, %k scales(%s) valid(%len) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<2x64x128xbf16>, tensor<2x64xf32>, tensor<4096x128xf8E4M3FN>, tensor<4096xf32>, tensor<2xi32>)
        -> tensor<2x2048xi32>
  return %t : tensor<2x2048xi32>
}

// BF16: result #0 (tensor<1x256xi32>): {{.*}} -> ok
func.func @bf16_plain(%q: tensor<1x32x64xbf16>, %w: tensor<1x32xf32>, %k: tensor<1000x64xbf16>) -> tensor<1x256xi32> {
  %t = indexpool.select %q, %w, %k {k = 32 : i64, pool_size = 8 : i64}
      : (tensor<1x32x64xbf16>, tensor<1x32xf32>, tensor<1000x64xbf16>) -> tensor<1x256xi32>
  return %t : tensor<1x256xi32>
}

// DYN: result #0 (tensor<2x400xi32>): {{.*}} -> ok
func.func @i8_dynamic(%q: tensor<?x?x?xf32>, %w: tensor<?x?xf32>, %k: tensor<?x?xi8>, %s: tensor<?xf32>,
                      %len: tensor<?xi32>) -> tensor<?x400xi32> {
  %t = indexpool.select %q, %w, %k scales(%s) valid(%len) {k = 100 : i64, pool_size = 4 : i64}
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xf32>, tensor<?xi32>) -> tensor<?x400xi32>
  return %t : tensor<?x400xi32>
}
