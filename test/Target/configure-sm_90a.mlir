// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_90a | FileCheck %s
// The configured IR verifies and round-trips:
// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_90a --mlir-print-op-generic \
// RUN:   | indexpool-opt --verify-roundtrip | FileCheck %s

// sm_90a: H100 SXM5, architecture-specific target; the same part as sm_90.
// the same choices as sm_90: the launch depends on the part, not on the
// instructions the target allows.

// CHECK-LABEL: func.func @glm_compress
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_90a", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_compress_256k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_90a", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_compress_512k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_90a", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_select
// CHECK: indexpool.select {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_90a", threads_per_block = 512, items_per_block = 64, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_score_topk
// CHECK: indexpool.score {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_90a", threads_per_block = 512, items_per_block = 64, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>
// CHECK: indexpool.topk {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_90a", threads_per_block = 1024, items_per_block = 1, elements_per_thread = 1, vector_bytes = 4, grid = tiled>
// CHECK: indexpool.expand {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_90a", threads_per_block = 512, items_per_block = 16, elements_per_thread = 16, vector_bytes = 16, grid = tiled>
