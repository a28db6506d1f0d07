// indexpool-compile fuses by default: the pool -> hadamard -> quantize chain
// is one compress kernel with no bf16 intermediates in device memory;
// --fuse=false compiles the three ops as written. --tuning-db configures
// every op from the database (its first entry: 256 threads for compress on
// sm_90 with T >= 65536, D = 128) instead of the cost model (512).
// RUN: indexpool-compile %s --chip=sm_90 -o %t.fused
// RUN: FileCheck %s --check-prefix=FUSED < %t.fused/chain.sm_90.json
// The keys' pointer must be 16-byte aligned (16-byte vector loads), the
// per-token scores' only 4 (scalar loads): the manifest says so per kernel
// parameter.
// RUN: FileCheck %s --check-prefix=ALIGN < %t.fused/chain.sm_90.json
// RUN: indexpool-compile %s --chip=sm_90 --fuse=false -o %t.unfused
// RUN: FileCheck %s --check-prefix=UNFUSED < %t.unfused/chain.sm_90.json
// RUN: indexpool-compile %s --chip=sm_90 --tuning-db=%S/../Transforms/Inputs/tuning-db.json -o %t.tuned
// RUN: FileCheck %s --check-prefix=TUNED < %t.tuned/chain.sm_90.json
// RUN: not indexpool-compile %s --chip=sm_90 --tuning-db=%S/../Transforms/Inputs/tuning-db.json --threads-per-block=64 -o %t.both 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not indexpool-compile %s --chip=sm_90 --tuning-db=%S/../Transforms/Inputs/tuning-db-bad-json.json -o %t.bad 2>&1 | FileCheck %s --check-prefix=BADDB

// FUSED-NOT: "temporary"
// FUSED: "launches": [
// FUSED: "block": [
// FUSED-NEXT: 512,
// FUSED: "kernel": "chain_kernel",
// FUSED-NOT: "kernel":
// ALIGN: "kernels": [
// ALIGN: "align": 4,
// ALIGN-NEXT: "bytes": 262144,
// ALIGN: "align": 16,
// ALIGN-NEXT: "bytes": 16777216,
// UNFUSED: "role": "temporary",
// UNFUSED-NEXT: "shape": [
// UNFUSED-NEXT: 16384,
// UNFUSED-NEXT: 128
// UNFUSED-NEXT: ],
// UNFUSED-NEXT: "type": "bf16"
// UNFUSED: "launches": [
// UNFUSED-COUNT-3: "kernel":
// UNFUSED-NOT: "kernel":
// TUNED: "block": [
// TUNED-NEXT: 256,
// BOTH: indexpool-compile: error: --tuning-db and --threads-per-block both choose the block sizes: give one of them
// BADDB: tuning-db-bad-json.json

func.func @chain(%keys: tensor<65536x128xbf16>, %scores: tensor<65536xf32>)
    -> (tensor<16384x128xf8E4M3FN>, tensor<16384xf32>) {
  %p, %w = indexpool.pool %keys, %scores {pool_size = 4 : i64}
      : (tensor<65536x128xbf16>, tensor<65536xf32>) -> (tensor<16384x128xbf16>, tensor<16384x4xf32>)
  %r = indexpool.hadamard %p : (tensor<16384x128xbf16>) -> tensor<16384x128xbf16>
  %q, %s = indexpool.quantize %r {pow2_scale} : (tensor<16384x128xbf16>) -> (tensor<16384x128xf8E4M3FN>, tensor<16384xf32>)
  return %q, %s : tensor<16384x128xf8E4M3FN>, tensor<16384xf32>
}
