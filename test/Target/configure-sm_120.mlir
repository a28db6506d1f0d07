// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_120 | FileCheck %s
// The configured IR verifies and round-trips:
// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_120 --mlir-print-op-generic \
// RUN:   | indexpool-opt --verify-roundtrip | FileCheck %s

// sm_120: GeForce RTX 5090; 170 SMs, 1536 threads/SM, 1792 GB/s.
// 384-thread blocks like the other 1536-thread chips; its 170 SMs keep the
// 256k-token compress tiled (2731 <= 8 x 680) where sm_86 and sm_89 go
// grid-stride, but not the 512k one (5462 > 5440).

// CHECK-LABEL: func.func @glm_compress
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_120", threads_per_block = 384, items_per_block = 24, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_compress_256k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_120", threads_per_block = 384, items_per_block = 24, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_compress_512k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_120", threads_per_block = 384, items_per_block = 24, elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_select
// CHECK: indexpool.select {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_120", threads_per_block = 384, items_per_block = 48, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_score_topk
// CHECK: indexpool.score {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_120", threads_per_block = 384, items_per_block = 48, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>
// CHECK: indexpool.topk {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_120", threads_per_block = 768, items_per_block = 1, elements_per_thread = 1, vector_bytes = 4, grid = tiled>
// CHECK: indexpool.expand {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_120", threads_per_block = 384, items_per_block = 12, elements_per_thread = 16, vector_bytes = 16, grid = tiled>
