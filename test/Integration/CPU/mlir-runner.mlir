// --indexpool-to-cpu output runs under the stock mlir-runner (OpenMP runtime
// loaded as a shared library). Expected values are worked out by hand.
// RUN: indexpool-opt %s --indexpool-to-cpu | %mlir_runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

func.func @print_f32(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print_i32(%t: tensor<?x?xi32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xi32> to memref<?x?xi32>
  %u = memref.cast %m : memref<?x?xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @main() {
  // H_8 / sqrt(8): e0 -> all 1/sqrt(8) = 0.353553; [1..8] -> row sums with
  // the Sylvester signs: 36, -4, -8, 0, -16, 0, 0, 0 over sqrt(8).
  %x = arith.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  %y = indexpool.hadamard %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %yd = tensor.cast %y : tensor<2x8xf32> to tensor<?x?xf32>
  call @print_f32(%yd) : (tensor<?x?xf32>) -> ()
  // CHECK: [0.353553,   0.353553,   0.353553,   0.353553,   0.353553,   0.353553,   0.353553,   0.353553]
  // CHECK: [12.7279,   -1.41421,   -2.82843,   0,   -5.65685,   0,   0,   0]

  // pow2 scales: 1/448 -> 2^-8, 8/448 -> 2^-5; every code is exact in e4m3,
  // so dequantize gives the input back.
  %q, %s = indexpool.quantize %x {pow2_scale} : (tensor<2x8xf32>) -> (tensor<2x8xf8E4M3FN>, tensor<2xf32>)
  %d = indexpool.dequantize %q, %s : (tensor<2x8xf8E4M3FN>, tensor<2xf32>) -> tensor<2x8xf32>
  %dd = tensor.cast %d : tensor<2x8xf32> to tensor<?x?xf32>
  call @print_f32(%dd) : (tensor<?x?xf32>) -> ()
  // CHECK: [1,   0,   0,   0,   0,   0,   0,   0]
  // CHECK: [1,   2,   3,   4,   5,   6,   7,   8]
  %s2 = tensor.expand_shape %s [[0, 1]] output_shape [1, 2] : tensor<2xf32> into tensor<1x2xf32>
  %sd = tensor.cast %s2 : tensor<1x2xf32> to tensor<?x?xf32>
  call @print_f32(%sd) : (tensor<?x?xf32>) -> ()
  // CHECK: [0.00390625,   0.03125]

  // Row 0: ties keep the smaller index, NaN ranks last; row 1: only the
  // first 2 columns are valid, the rest is -inf / -1 (expanded to -1).
  %l = arith.constant dense<[[3.0, 1.0, 3.0, 0x7FC00000, 5.0, -1.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]> : tensor<2x6xf32>
  %len = arith.constant dense<[6, 2]> : tensor<2xi32>
  %v, %i = indexpool.topk %l valid(%len) {k = 4 : i64}
      : (tensor<2x6xf32>, tensor<2xi32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  %vd = tensor.cast %v : tensor<2x4xf32> to tensor<?x?xf32>
  call @print_f32(%vd) : (tensor<?x?xf32>) -> ()
  // CHECK: [5,   3,   3,   1]
  // CHECK: [2,   1,   -inf,   -inf]
  %e = indexpool.expand %i {pool_size = 2 : i64} : (tensor<2x4xi32>) -> tensor<2x8xi32>
  %ed = tensor.cast %e : tensor<2x8xi32> to tensor<?x?xi32>
  call @print_i32(%ed) : (tensor<?x?xi32>) -> ()
  // CHECK: [8,   9,   0,   1,   4,   5,   2,   3]
  // CHECK: [2,   3,   0,   1,   -1,   -1,   -1,   -1]

  // Pool of 4 keys with scores 0, ln 3, 0, 0: weights 1/6, 3/6, 1/6, 1/6.
  %k = arith.constant dense<[[6.0, 0.0], [0.0, 6.0], [6.0, 12.0], [0.0, 0.0], [9.0, 9.0]]> : tensor<5x2xf32>
  %sc = arith.constant dense<[0.0, 1.0986122886681098, 0.0, 0.0, 7.0]> : tensor<5xf32>
  %pooled, %w = indexpool.pool %k, %sc {pool_size = 4 : i64}
      : (tensor<5x2xf32>, tensor<5xf32>) -> (tensor<1x2xf32>, tensor<1x4xf32>)
  %pd = tensor.cast %pooled : tensor<1x2xf32> to tensor<?x?xf32>
  call @print_f32(%pd) : (tensor<?x?xf32>) -> ()
  // CHECK: [2,   5]
  %wd = tensor.cast %w : tensor<1x4xf32> to tensor<?x?xf32>
  call @print_f32(%wd) : (tensor<?x?xf32>) -> ()
  // CHECK: [0.166667,   0.5,   0.166667,   0.166667]
  return
}
