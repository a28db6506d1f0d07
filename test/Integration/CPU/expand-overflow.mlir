// expand of pool indices near the i32 limit: an index whose tokens do not
// fit in i32, idx > (2^31 - 1 - (P - 1)) / P, expands to -1 like a negative
// one instead of wrapping. The indices are random [0, 100] plus an offset
// 50 below the limit, so about half the entries are past it; the CPU is
// checked against the reference (exact), then a hand-worked case.
// RUN: indexpool-run %s --function=near_limit_p2 --random-inputs=1 --verify | FileCheck %s --check-prefix=OK
// RUN: indexpool-run %s --function=near_limit_p4 --random-inputs=2 --verify | FileCheck %s --check-prefix=OK
// RUN: indexpool-run %s --function=near_limit_p64 --random-inputs=3 --verify | FileCheck %s --check-prefix=OK
// RUN: indexpool-opt %s --indexpool-to-cpu=check-bounds=true | %mlir_runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s --check-prefix=HAND

// OK: result #0 {{.*}} differing=0/{{[0-9]+}} {{.*}}-> ok

// P = 2: the limit is (2^31 - 2) / 2 = 1073741823.
func.func @near_limit_p2(%i: tensor<4x64xi32>) -> tensor<4x128xi32> {
  %c = arith.constant dense<1073741773> : tensor<4x64xi32>
  %j = arith.addi %i, %c : tensor<4x64xi32>
  %t = indexpool.expand %j {pool_size = 2 : i64} : (tensor<4x64xi32>) -> tensor<4x128xi32>
  return %t : tensor<4x128xi32>
}

// P = 4: the limit is (2^31 - 4) / 4 = 536870911.
func.func @near_limit_p4(%i: tensor<3x100xi32>) -> tensor<3x400xi32> {
  %c = arith.constant dense<536870861> : tensor<3x100xi32>
  %j = arith.addi %i, %c : tensor<3x100xi32>
  %t = indexpool.expand %j {pool_size = 4 : i64} : (tensor<3x100xi32>) -> tensor<3x400xi32>
  return %t : tensor<3x400xi32>
}

// P = 64: the limit is (2^31 - 1 - 63) / 64 = 33554431.
func.func @near_limit_p64(%i: tensor<2x77xi32>) -> tensor<2x4928xi32> {
  %c = arith.constant dense<33554381> : tensor<2x77xi32>
  %j = arith.addi %i, %c : tensor<2x77xi32>
  %t = indexpool.expand %j {pool_size = 64 : i64} : (tensor<2x77xi32>) -> tensor<2x4928xi32>
  return %t : tensor<2x4928xi32>
}

func.func private @printMemrefI32(memref<*xi32>)

// P = 4, limit 536870911. By hand: 536870911 -> 2147483644..2147483647
// (the last token is 2^31 - 1); 536870912, 2^31 - 1, -2^31 and -1 -> -1;
// 0 -> 0..3; 536870910 -> 2147483640..2147483643; 1 -> 4..7.
// HAND: [2147483644,   2147483645,   2147483646,   2147483647,   -1,   -1,   -1,   -1,   -1,   -1,   -1,   -1,   -1,   -1,   -1,   -1,   0,   1,   2,   3,   -1,   -1,   -1,   -1,   2147483640,   2147483641,   2147483642,   2147483643,   4,   5,   6,   7]
func.func @main() {
  %i = arith.constant dense<[[536870911, 536870912, 2147483647, -2147483648, 0, -1, 536870910, 1]]> : tensor<1x8xi32>
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<1x8xi32>) -> tensor<1x32xi32>
  %m = bufferization.to_buffer %t : tensor<1x32xi32> to memref<1x32xi32>
  %u = memref.cast %m : memref<1x32xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
