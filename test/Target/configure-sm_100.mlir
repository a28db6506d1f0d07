// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_100 | FileCheck %s
// The configured IR verifies and round-trips:
// RUN: indexpool-opt %S/Inputs/configure.mlir --indexpool-configure=chip=sm_100 --mlir-print-op-generic \
// RUN:   | indexpool-opt --verify-roundtrip | FileCheck %s

// sm_100: B200; 148 SMs, 2048 threads/SM, 8000 GB/s.
// 512-thread blocks as on H100. B200 needs 32.4 KB in flight per SM
// (8000 GB/s / 148 x 600 ns), twice H100's 15.2 KB, but a thread already
// has 192 B of a compress pool (4 key and 4 score vectors) or 16.5 B of a
// score key row in flight, so one row per thread group suffices here too;
// B200 differs from H100 only where SM count or smaller rows decide.

// CHECK-LABEL: func.func @glm_compress
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_100", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_compress_256k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_100", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_compress_512k
// CHECK: indexpool.compress {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_100", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>

// CHECK-LABEL: func.func @glm_select
// CHECK: indexpool.select {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_100", threads_per_block = 512, items_per_block = 64, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>

// CHECK-LABEL: func.func @glm_score_topk
// CHECK: indexpool.score {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_100", threads_per_block = 512, items_per_block = 64, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>
// CHECK: indexpool.topk {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_100", threads_per_block = 1024, items_per_block = 1, elements_per_thread = 1, vector_bytes = 4, grid = tiled>
// CHECK: indexpool.expand {{.*}}indexpool.launch = #indexpool.launch<chip = "sm_100", threads_per_block = 512, items_per_block = 16, elements_per_thread = 16, vector_bytes = 16, grid = tiled>
