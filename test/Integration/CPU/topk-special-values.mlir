// topk on --device=cpu with ties, NaN, -0/+0, +-inf, k = N, k = 1, valid
// lengths of 0, > N and negative, and N a prime. The logits are computed
// from the inputs by arith ops that round exactly like the reference, so
// --verify compares values and indices exactly: a tie broken the wrong way
// fails. The last RUN line checks a small case worked out by hand.
// RUN: indexpool-run %s --function=ties --random-inputs=1 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=ties_k1 --random-inputs=2 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=zeros_k_eq_n --random-inputs=3 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=nan --random-inputs=4 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=infinities --random-inputs=5 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=infinities_k_eq_n --random-inputs=6 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=odd_valid --random-inputs=7 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=dynamic_valid --random-inputs=8 --input-shape=0:6x137 --input-shape=1:6 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-opt %s --indexpool-to-cpu=check-bounds=true | %mlir_runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s --check-prefix=HAND

// TWO-COUNT-2: differing=0/{{[0-9]+}} {{.*}}-> ok
// TWO-NOT: FAILED

// Logits clamped to [-0.25, 0.25]: hundreds of ties at each end; the top
// 701 all come from the tie at 0.25, in column order. N = 1999 is prime.
func.func @ties(%x: tensor<3x1999xf32>) -> (tensor<3x701xf32>, tensor<3x701xi32>) {
  %lo = arith.constant dense<-0.25> : tensor<3x1999xf32>
  %hi = arith.constant dense<0.25> : tensor<3x1999xf32>
  %a = arith.maximumf %x, %lo : tensor<3x1999xf32>
  %l = arith.minimumf %a, %hi : tensor<3x1999xf32>
  %v, %i = indexpool.topk %l {k = 701 : i64} : (tensor<3x1999xf32>) -> (tensor<3x701xf32>, tensor<3x701xi32>)
  return %v, %i : tensor<3x701xf32>, tensor<3x701xi32>
}

// k = 1 of the same ties: the first column at 0.25.
func.func @ties_k1(%x: tensor<5x1000xf32>) -> (tensor<5x1xf32>, tensor<5x1xi32>) {
  %lo = arith.constant dense<-0.25> : tensor<5x1000xf32>
  %hi = arith.constant dense<0.25> : tensor<5x1000xf32>
  %a = arith.maximumf %x, %lo : tensor<5x1000xf32>
  %l = arith.minimumf %a, %hi : tensor<5x1000xf32>
  %v, %i = indexpool.topk %l {k = 1 : i64} : (tensor<5x1000xf32>) -> (tensor<5x1xf32>, tensor<5x1xi32>)
  return %v, %i : tensor<5x1xf32>, tensor<5x1xi32>
}

// x * 0 is -0 for negative x and +0 otherwise: -0 == +0, so all N = 301
// columns tie and come in order, each keeping its sign.
func.func @zeros_k_eq_n(%x: tensor<2x301xf32>) -> (tensor<2x301xf32>, tensor<2x301xi32>) {
  %zero = arith.constant dense<0.0> : tensor<2x301xf32>
  %l = arith.mulf %x, %zero : tensor<2x301xf32>
  %v, %i = indexpool.topk %l {k = 301 : i64} : (tensor<2x301xf32>) -> (tensor<2x301xf32>, tensor<2x301xi32>)
  return %v, %i : tensor<2x301xf32>, tensor<2x301xi32>
}

// max(x, 0) / max(x, 0) is NaN for x <= 0 and 1 otherwise: x + that is NaN
// in about half the columns, which rank below every number and among
// themselves by column; k reaches into the NaNs.
func.func @nan(%x: tensor<2x503xf32>) -> (tensor<2x400xf32>, tensor<2x400xi32>) {
  %zero = arith.constant dense<0.0> : tensor<2x503xf32>
  %m = arith.maximumf %x, %zero : tensor<2x503xf32>
  %r = arith.divf %m, %m : tensor<2x503xf32>
  %l = arith.addf %x, %r : tensor<2x503xf32>
  %v, %i = indexpool.topk %l {k = 400 : i64} : (tensor<2x503xf32>) -> (tensor<2x400xf32>, tensor<2x400xi32>)
  return %v, %i : tensor<2x400xf32>, tensor<2x400xi32>
}

// x / max(|x| - 1, 0): +inf or -inf (x / +0) where |x| <= 1, about two
// thirds of the columns, finite elsewhere.
func.func @infinities(%x: tensor<4x997xf32>) -> (tensor<4x331xf32>, tensor<4x331xi32>) {
  %zero = arith.constant dense<0.0> : tensor<4x997xf32>
  %one = arith.constant dense<1.0> : tensor<4x997xf32>
  %n = arith.negf %x : tensor<4x997xf32>
  %abs = arith.maximumf %x, %n : tensor<4x997xf32>
  %s = arith.subf %abs, %one : tensor<4x997xf32>
  %d = arith.maximumf %s, %zero : tensor<4x997xf32>
  %l = arith.divf %x, %d : tensor<4x997xf32>
  %v, %i = indexpool.topk %l {k = 331 : i64} : (tensor<4x997xf32>) -> (tensor<4x331xf32>, tensor<4x331xi32>)
  return %v, %i : tensor<4x331xf32>, tensor<4x331xi32>
}

// The same with k = N: the whole row sorted, -inf ties at the end.
func.func @infinities_k_eq_n(%x: tensor<3x257xf32>) -> (tensor<3x257xf32>, tensor<3x257xi32>) {
  %zero = arith.constant dense<0.0> : tensor<3x257xf32>
  %one = arith.constant dense<1.0> : tensor<3x257xf32>
  %n = arith.negf %x : tensor<3x257xf32>
  %abs = arith.maximumf %x, %n : tensor<3x257xf32>
  %s = arith.subf %abs, %one : tensor<3x257xf32>
  %d = arith.maximumf %s, %zero : tensor<3x257xf32>
  %l = arith.divf %x, %d : tensor<3x257xf32>
  %v, %i = indexpool.topk %l {k = 257 : i64} : (tensor<3x257xf32>) -> (tensor<3x257xf32>, tensor<3x257xi32>)
  return %v, %i : tensor<3x257xf32>, tensor<3x257xi32>
}

// Valid lengths 0, negative, > N, i32 extremes, and around k and N = 101:
// clamped to [0, N], rows shorter than k padded with -inf / -1.
func.func @odd_valid(%x: tensor<10x101xf32>) -> (tensor<10x64xf32>, tensor<10x64xi32>) {
  %lo = arith.constant dense<-0.25> : tensor<10x101xf32>
  %hi = arith.constant dense<0.25> : tensor<10x101xf32>
  %a = arith.maximumf %x, %lo : tensor<10x101xf32>
  %l = arith.minimumf %a, %hi : tensor<10x101xf32>
  %len = arith.constant dense<[0, -1, -2147483648, 1, 63, 64, 65, 101, 102, 2147483647]> : tensor<10xi32>
  %v, %i = indexpool.topk %l valid(%len) {k = 64 : i64}
      : (tensor<10x101xf32>, tensor<10xi32>) -> (tensor<10x64xf32>, tensor<10x64xi32>)
  return %v, %i : tensor<10x64xf32>, tensor<10x64xi32>
}

// Dynamic N = 137 and valid lengths in [0, N]: the padding below k = 50
// is decided at run time.
func.func @dynamic_valid(%l: tensor<?x?xf32>, %len: tensor<?xi32>) -> (tensor<?x50xf32>, tensor<?x50xi32>) {
  %v, %i = indexpool.topk %l valid(%len) {k = 50 : i64}
      : (tensor<?x?xf32>, tensor<?xi32>) -> (tensor<?x50xf32>, tensor<?x50xi32>)
  return %v, %i : tensor<?x50xf32>, tensor<?x50xi32>
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

// Row [NaN, 1, -0, 3, +0, 3, -inf, +inf, NaN, 1, -1] with 11 and 5 valid
// columns. By hand: +inf (7), the 3s (3, 5), the 1s (1, 9), the zeros in
// column order with their signs (2: -0, 4: +0), -1 (10), -inf (6), the NaNs
// (0, 8). Five columns: 3 (3), 1 (1), -0 (2), +0 (4), NaN (0), then padding.
// k = 1 takes +inf (7) and, of five columns, 3 (3).
// HAND: [7,   3,   5,   1,   9,   2,   4,   10,   6,   0,   8]
// HAND-NEXT: [3,   1,   2,   4,   0,   -1,   -1,   -1,   -1,   -1,   -1]
// HAND: [inf,   3,   3,   1,   1,   -0,   0,   -1,   -inf,   nan,   nan]
// HAND-NEXT: [3,   1,   -0,   0,   nan,   -inf,   -inf,   -inf,   -inf,   -inf,   -inf]
// HAND: [7]
// HAND-NEXT: [3]
func.func @main() {
  %l = arith.constant dense<[
      [0x7FC00000, 1.0, -0.0, 3.0, 0.0, 3.0, 0xFF800000, 0x7F800000, 0x7FC00000, 1.0, -1.0],
      [0x7FC00000, 1.0, -0.0, 3.0, 0.0, 3.0, 0xFF800000, 0x7F800000, 0x7FC00000, 1.0, -1.0]]> : tensor<2x11xf32>
  %len = arith.constant dense<[11, 5]> : tensor<2xi32>
  %v, %i = indexpool.topk %l valid(%len) {k = 11 : i64}
      : (tensor<2x11xf32>, tensor<2xi32>) -> (tensor<2x11xf32>, tensor<2x11xi32>)
  %im = bufferization.to_buffer %i : tensor<2x11xi32> to memref<2x11xi32>
  %iu = memref.cast %im : memref<2x11xi32> to memref<*xi32>
  call @printMemrefI32(%iu) : (memref<*xi32>) -> ()
  %vm = bufferization.to_buffer %v : tensor<2x11xf32> to memref<2x11xf32>
  %vu = memref.cast %vm : memref<2x11xf32> to memref<*xf32>
  call @printMemrefF32(%vu) : (memref<*xf32>) -> ()
  %v1, %i1 = indexpool.topk %l valid(%len) {k = 1 : i64}
      : (tensor<2x11xf32>, tensor<2xi32>) -> (tensor<2x1xf32>, tensor<2x1xi32>)
  %i1m = bufferization.to_buffer %i1 : tensor<2x1xi32> to memref<2x1xi32>
  %i1u = memref.cast %i1m : memref<2x1xi32> to memref<*xi32>
  call @printMemrefI32(%i1u) : (memref<*xi32>) -> ()
  return
}
