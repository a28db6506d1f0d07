// RUN: indexpool-opt %s -split-input-file --indexpool-configure=chip=sm_90 | FileCheck %s --check-prefix=MODEL
// RUN: indexpool-opt %s -split-input-file \
// RUN:   --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db.json" | FileCheck %s --check-prefix=DB
// The configured IR verifies and round-trips in generic form:
// RUN: indexpool-opt %s -split-input-file --indexpool-configure=chip=sm_90 --mlir-print-op-generic \
// RUN:   | indexpool-opt -split-input-file --verify-roundtrip | FileCheck %s --check-prefix=MODEL
// Inside a function pipeline too (the pass runs on any op):
// RUN: indexpool-opt %s -split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(indexpool-configure{chip=sm_90}))" \
// RUN:   | FileCheck %s --check-prefix=MODEL

// Every op gets a launch on H100 (132 SMs, 2048 threads/SM): 512-thread
// blocks for row ops, a block per row for topk.

// MODEL-LABEL: func.func @every_op
// MODEL: indexpool.pool {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>
// f32 rows of 128: 32 threads x 4 elements.
// MODEL: indexpool.hadamard {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 16, elements_per_thread = 4, vector_bytes = 16, grid = tiled>
// MODEL: indexpool.quantize {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 16, elements_per_thread = 4, vector_bytes = 16, grid = tiled>
// fp8 codes: 128 B rows = 8 threads x 16 elements.
// MODEL: indexpool.dequantize {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 64, elements_per_thread = 16, vector_bytes = 16, grid = tiled>
// MODEL: indexpool.reconstruct {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 16, elements_per_thread = 4, vector_bytes = 16, grid = tiled>
// MODEL: indexpool.residual {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 16, elements_per_thread = 4, vector_bytes = 16, grid = tiled>
// MODEL: indexpool.score {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 64, elements_per_thread = 16, vector_bytes = 16, grid = grid_stride>
// A row of 256 logits: 256 threads, one column each.
// MODEL: indexpool.topk {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 256, items_per_block = 1, elements_per_thread = 1, vector_bytes = 4, grid = tiled>
// Rows of 8 i32 (32 B): 2 threads each, 256 rows per block.
// MODEL: indexpool.expand {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 256, elements_per_thread = 4, vector_bytes = 16, grid = tiled>
func.func @every_op(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>, %x: tensor<256x128xf32>,
                    %q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>)
    -> (tensor<256x128xf32>, tensor<1024x128xf32>, tensor<1x32xi32>) {
  %p, %pw = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xbf16>, tensor<256x4xf32>)
  %r = indexpool.hadamard %x : (tensor<256x128xf32>) -> tensor<256x128xf32>
  %c, %s = indexpool.quantize %r : (tensor<256x128xf32>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  %d = indexpool.dequantize %c, %s : (tensor<256x128xf8E4M3FN>, tensor<256xf32>) -> tensor<256x128xf32>
  %full = indexpool.reconstruct %d {pool_size = 4 : i64} : (tensor<256x128xf32>) -> tensor<1024x128xf32>
  %res = indexpool.residual %full, %d {pool_size = 4 : i64}
      : (tensor<1024x128xf32>, tensor<256x128xf32>) -> tensor<1024x128xf32>
  %l = indexpool.score %q, %w, %c scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xf8E4M3FN>, tensor<256xf32>) -> tensor<1x256xf32>
  %v, %i = indexpool.topk %l {k = 8 : i64} : (tensor<1x256xf32>) -> (tensor<1x8xf32>, tensor<1x8xi32>)
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<1x8xi32>) -> tensor<1x32xi32>
  return %d, %res, %t : tensor<256x128xf32>, tensor<1024x128xf32>, tensor<1x32xi32>
}

// -----

// A dynamic number of rows: a grid-stride loop over one wave of blocks.
// MODEL-LABEL: func.func @dynamic_tokens
// MODEL: indexpool.compress {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>
// The first entry's T>=65536 does not hold for a dynamic T; the second
// entry (any compress) sets the tile alone.
// DB-LABEL: func.func @dynamic_tokens
// DB: indexpool.compress {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 64, elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>
func.func @dynamic_tokens(%keys: tensor<?x128xbf16>, %scores: tensor<?x128xf32>)
    -> (tensor<?x128xf8E4M3FN>, tensor<?xf32>, tensor<?x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<?x128xbf16>, tensor<?x128xf32>) -> (tensor<?x128xf8E4M3FN>, tensor<?xf32>, tensor<?x4x128xf32>)
  return %q, %s, %w : tensor<?x128xf8E4M3FN>, tensor<?xf32>, tensor<?x4x128xf32>
}

// -----

// A dynamic D: a warp per row, 16-byte vectors behind a run-time alignment
// check.
// MODEL-LABEL: func.func @dynamic_dim
// MODEL: indexpool.hadamard {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 16, elements_per_thread = 8, vector_bytes = 16, grid = tiled>
func.func @dynamic_dim(%x: tensor<64x?xbf16>) -> tensor<64x?xbf16> {
  %y = indexpool.hadamard %x : (tensor<64x?xbf16>) -> tensor<64x?xbf16>
  return %y : tensor<64x?xbf16>
}

// -----

// Rows of 6 bf16 (12 bytes): 4-byte vectors, 3 per row.
// MODEL-LABEL: func.func @narrow_rows
// MODEL: indexpool.quantize {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 128, elements_per_thread = 2, vector_bytes = 4, grid = tiled>
func.func @narrow_rows(%x: tensor<4096x6xbf16>) -> (tensor<4096x6xi8>, tensor<4096xf32>) {
  %q, %s = indexpool.quantize %x : (tensor<4096x6xbf16>) -> (tensor<4096x6xi8>, tensor<4096xf32>)
  return %q, %s : tensor<4096x6xi8>, tensor<4096xf32>
}

// -----

// The tuning database: the GLM-size compress takes every field of entry 1,
// a small compress only entry 2's tile; topk over 1024 columns takes entry
// 4, over 16384 none (entry 3 is for sm_80).
// DB-LABEL: func.func @tuned
// DB: indexpool.compress {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 256, items_per_block = 16, elements_per_thread = 8, vector_bytes = 16, grid = grid_stride>
// DB: indexpool.compress {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 64, elements_per_thread = 8, vector_bytes = 16, grid = tiled>
// DB: indexpool.topk {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 128, items_per_block = 1, elements_per_thread = 8, vector_bytes = 4, grid = tiled>
// DB: indexpool.topk {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 1024, items_per_block = 1, elements_per_thread = 1, vector_bytes = 4, grid = tiled>
// MODEL-LABEL: func.func @tuned
// MODEL: indexpool.compress {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>
// MODEL: indexpool.compress {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512, items_per_block = 32, elements_per_thread = 8, vector_bytes = 16, grid = tiled>
// MODEL: indexpool.topk {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 1024, items_per_block = 1, elements_per_thread = 1, vector_bytes = 4, grid = tiled>
// MODEL: indexpool.topk {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 1024, items_per_block = 1, elements_per_thread = 1, vector_bytes = 4, grid = tiled>
func.func @tuned(%keys: tensor<65536x128xbf16>, %scores: tensor<65536x128xf32>,
                 %small: tensor<1024x128xbf16>, %sscores: tensor<1024x128xf32>,
                 %l1k: tensor<4x1024xf32>, %l16k: tensor<4x16384xf32>)
    -> (tensor<16384x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<4x64xi32>, tensor<4x64xi32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<65536x128xbf16>, tensor<65536x128xf32>)
        -> (tensor<16384x128xf8E4M3FN>, tensor<16384xf32>, tensor<16384x4x128xf32>)
  %q2, %s2, %w2 = indexpool.compress %small, %sscores {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1024x128xbf16>, tensor<1024x128xf32>)
        -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4x128xf32>)
  %v1, %i1 = indexpool.topk %l1k {k = 64 : i64} : (tensor<4x1024xf32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
  %v2, %i2 = indexpool.topk %l16k {k = 64 : i64} : (tensor<4x16384xf32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
  return %q, %q2, %i1, %i2 : tensor<16384x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<4x64xi32>, tensor<4x64xi32>
}

// -----

// Configuring again for another chip replaces the launch.
// MODEL-LABEL: func.func @reconfigure
// MODEL: indexpool.hadamard {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block = 512,
// MODEL-NOT: sm_89
func.func @reconfigure(%x: tensor<256x128xbf16>) -> tensor<256x128xbf16> {
  %y = indexpool.hadamard %x {indexpool.launch = #indexpool.launch<chip = "sm_89",
      threads_per_block = 384, items_per_block = 24, elements_per_thread = 8,
      vector_bytes = 16, grid = tiled>}
      : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  return %y : tensor<256x128xbf16>
}

// -----

// refine streams each row's candidates (an id and a key row each) like
// score streams keys: it gets a launch, which its three kernels share.
// MODEL-LABEL: func.func @refine
// MODEL: indexpool.refine {{.*}}#indexpool.launch<chip = "sm_90", threads_per_block =
func.func @refine(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %cand: tensor<1x4096xi32>,
                  %keys: tensor<65536x128xbf16>) -> tensor<1x512xi32> {
  %t = indexpool.refine %q, %w, %cand, %keys {k = 512 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<1x4096xi32>, tensor<65536x128xbf16>)
        -> tensor<1x512xi32>
  return %t : tensor<1x512xi32>
}
