// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_89 | FileCheck %s
// The configured IR verifies and round-trips:
// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_89 --mlir-print-op-generic \
// RUN:   | indexpool-opt --verify-roundtrip | FileCheck %s

// sm_89: L4; 58 SMs, 1536 threads/SM, 300 GB/s (the RTX 4090 has the same
// per-SM limits and 128 SMs).
// 384-thread blocks (4 per SM) as on every 1536-thread chip; its 58 SMs make
// the 256k-token compress grid-stride (2731 tiles > 8 x 232 blocks).

// CHECK-LABEL: func.func @glm_compress
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_89", threads_per_block = 384, items_per_block = 24, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_compress_256k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_89", threads_per_block = 384, items_per_block = 24, elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_compress_512k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_89", threads_per_block = 384, items_per_block = 24, elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_select
// CHECK: indexpool.select {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_89", threads_per_block = 384, items_per_block = 48, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_score_topk
// CHECK: indexpool.score {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_89", threads_per_block = 384, items_per_block = 48, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>
// CHECK: indexpool.topk {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_89", threads_per_block = 768, items_per_block = 1, elements_per_thread = 1, vector_bytes = 4, grid = tiled>
// CHECK: indexpool.expand {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_89", threads_per_block = 384, items_per_block = 12, elements_per_thread = 16, vector_bytes = 16, grid = tiled>
