// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_86 | FileCheck %s
// The configured IR verifies and round-trips:
// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_86 --mlir-print-op-generic \
// RUN:   | indexpool-opt --verify-roundtrip | FileCheck %s

// sm_86: RTX A6000; 84 SMs, 1536 threads/SM, 768 GB/s.
// 384-thread blocks (4 per SM), so 24 pools per compress tile and 768-thread
// topk blocks. With 84 SMs the 256k-token compress is already more than 8
// waves (2731 tiles > 8 x 336 blocks): grid-stride.

// CHECK-LABEL: func.func @glm_compress
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_86", threads_per_block = 384, items_per_block = 24, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_compress_256k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_86", threads_per_block = 384, items_per_block = 24, elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_compress_512k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_86", threads_per_block = 384, items_per_block = 24, elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_select
// CHECK: indexpool.select {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_86", threads_per_block = 384, items_per_block = 48, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_score_topk
// CHECK: indexpool.score {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_86", threads_per_block = 384, items_per_block = 48, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>
// CHECK: indexpool.topk {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_86", threads_per_block = 768, items_per_block = 1, elements_per_thread = 1, vector_bytes = 4, grid = tiled>
// CHECK: indexpool.expand {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_86", threads_per_block = 384, items_per_block = 12, elements_per_thread = 16, vector_bytes = 16, grid = tiled>
