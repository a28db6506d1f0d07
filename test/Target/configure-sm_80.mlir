// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_80 | FileCheck %s
// The configured IR verifies and round-trips:
// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_80 --mlir-print-op-generic \
// RUN:   | indexpool-opt --verify-roundtrip | FileCheck %s

// sm_80: A100 SXM4 80GB; 108 SMs, 2048 threads/SM, 2039 GB/s.
// 512-thread blocks (4 per SM). Its 108 SMs make the 512k-token compress
// more than 8 waves (4096 tiles > 8 x 432 blocks): grid-stride, unlike
// H100 and B200.

// CHECK-LABEL: func.func @glm_compress
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_80", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_compress_256k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_80", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_compress_512k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_80", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_select
// CHECK: indexpool.select {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_80", threads_per_block = 512, items_per_block = 64, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_score_topk
// CHECK: indexpool.score {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_80", threads_per_block = 512, items_per_block = 64, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>
// CHECK: indexpool.topk {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_80", threads_per_block = 1024, items_per_block = 1, elements_per_thread = 1, vector_bytes = 4, grid = tiled>
// CHECK: indexpool.expand {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_80", threads_per_block = 512, items_per_block = 16, elements_per_thread = 16, vector_bytes = 16, grid = tiled>
