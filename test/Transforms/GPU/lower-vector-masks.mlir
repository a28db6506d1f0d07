// --indexpool-lower-vector-masks: inside gpu.module, vector.constant_mask
// becomes a constant and an n-d vector.create_mask 1-d masks selected by
// comparisons of the outer bounds (upstream's mask lowering patterns), a
// 1-d create_mask (a bound known at run time, e.g. a dynamic D's tail) a
// comparison of the lane indices with the bound in 64 bits; masks outside
// GPU modules stay.
// RUN: indexpool-opt %s --pass-pipeline="builtin.module(gpu.module(indexpool-lower-vector-masks))" | FileCheck %s

// CHECK-LABEL: gpu.module @kernels
// CHECK-LABEL: gpu.func @tail
// CHECK-NOT: vector.constant_mask
// CHECK: %[[M:.*]] = arith.constant dense<[true, true, true, true, false, false, false, false]> : vector<8xi1>
// CHECK: vector.maskedload %{{.*}}[%{{.*}}], %[[M]], %{{.*}}
gpu.module @kernels {
  gpu.func @tail(%m: memref<100xf32>, %out: memref<8xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c96 = arith.constant 96 : index
    %pass = arith.constant dense<0.0> : vector<8xf32>
    %mask = vector.constant_mask [4] : vector<8xi1>
    %v = vector.maskedload %m[%c96], %mask, %pass : memref<100xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
    vector.store %v, %out[%c0] : memref<8xf32>, vector<8xf32>
    gpu.return
  }

// CHECK-LABEL: gpu.func @constant2d
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<{{\[}}[true, true, true, false], [false, false, false, false]]> : vector<2x4xi1>
// CHECK-NEXT: gpu.return %[[C]]
  gpu.func @constant2d() -> vector<2x4xi1> {
    %mask = vector.constant_mask [1, 3] : vector<2x4xi1>
    gpu.return %mask : vector<2x4xi1>
  }

// CHECK-LABEL: gpu.func @create2d
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[NONE:.*]] = arith.constant dense<false> : vector<4xi1>
// CHECK-DAG: %[[LANES4:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xi64>
// CHECK: %[[B64:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[BS:.*]] = vector.broadcast %[[B64]] : i64 to vector<4xi64>
// CHECK: %[[ROW:.*]] = arith.cmpi sgt, %[[BS]], %[[LANES4]] : vector<4xi64>
// CHECK: %[[IN0:.*]] = arith.cmpi sgt, %[[A:.*]], %[[C0]] : index
// CHECK: %[[R0:.*]] = arith.select %[[IN0]], %[[ROW]], %[[NONE]] : vector<4xi1>
// CHECK: %[[M0:.*]] = vector.insert %[[R0]], %{{.*}} [0] : vector<4xi1> into vector<2x4xi1>
// CHECK: %[[IN1:.*]] = arith.cmpi sgt, %[[A]], %[[C1]] : index
// CHECK: %[[R1:.*]] = arith.select %[[IN1]], %[[ROW]], %[[NONE]] : vector<4xi1>
// CHECK: %[[M1:.*]] = vector.insert %[[R1]], %[[M0]] [1] : vector<4xi1> into vector<2x4xi1>
// CHECK: gpu.return %[[M1]]
  gpu.func @create2d(%a: index, %b: index) -> vector<2x4xi1> {
    %mask = vector.create_mask %a, %b : vector<2x4xi1>
    gpu.return %mask : vector<2x4xi1>
  }

// CHECK-LABEL: gpu.func @create1d
// CHECK-DAG: %[[LANES:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xi64>
// CHECK: %[[N64:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[NS:.*]] = vector.broadcast %[[N64]] : i64 to vector<8xi64>
// CHECK: %[[MASK:.*]] = arith.cmpi sgt, %[[NS]], %[[LANES]] : vector<8xi64>
// CHECK: vector.maskedstore %{{.*}}[%{{.*}}], %[[MASK]], %{{.*}}
  gpu.func @create1d(%m: memref<?xf32>, %n: index, %v: vector<8xf32>) kernel {
    %c0 = arith.constant 0 : index
    %mask = vector.create_mask %n : vector<8xi1>
    vector.maskedstore %m[%c0], %mask, %v : memref<?xf32>, vector<8xi1>, vector<8xf32>
    gpu.return
  }
}

// CHECK-LABEL: func.func @host
// CHECK: vector.constant_mask [4] : vector<8xi1>
func.func @host() -> vector<8xi1> {
  %mask = vector.constant_mask [4] : vector<8xi1>
  return %mask : vector<8xi1>
}
