// The bundled example parses, verifies and round-trips.
// RUN: indexpool-opt %indexpool_src/examples/glm5_indexer.mlir --verify-roundtrip | FileCheck %s

// CHECK-LABEL: func.func @compress_cache
// CHECK: indexpool.pool {{.*}} bias({{.*}}) {pool_size = 4 : i64}
// CHECK: indexpool.hadamard
// CHECK: indexpool.quantize {{.*}} {pow2_scale} : (tensor<16384x128xbf16>) -> (tensor<16384x128xf8E4M3FN>, tensor<16384xf32>)
// CHECK-LABEL: func.func @select_tokens
// CHECK: indexpool.score {{.*}} scales(
// CHECK: indexpool.topk {{.*}} valid({{.*}}) {k = 512 : i64}
// CHECK: indexpool.expand {{.*}} -> tensor<1x2048xi32>
