// indexpool-compile writes the kernels and a manifest that describes the
// buffers, the launches in order and what the function computes. compress
// is one kernel with the chip's launch configuration (--indexpool-configure
// runs when the ops have none): 384 threads on sm_89; 8 lanes per group of
// D = 64 bf16 channels, 4 groups per warp, 12 warps: 256 / 48 = 6 blocks.
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_89 --emit=ptx -o %t | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/kpool.sm_89.json
// RUN: FileCheck %s --check-prefix=PTX < %t/kpool.sm_89.ptx
// RUN: indexpool-compile %s --chip=sm_120 --emit=cubin -o %t
// RUN: test -s %t/kpool.sm_120.cubin
// RUN: indexpool-compile %s --chip=sm_80 --emit=mlir -o %t && FileCheck %s --check-prefix=MLIR < %t/kpool.sm_80.mlir
// RUN: not indexpool-compile %s --chip=sm_42 -o %t 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not indexpool-compile %s --chip=sm_90 --emit=elf -o %t 2>&1 | FileCheck %s --check-prefix=EMIT
// A dynamic function compiles once for every size: buffer shapes, grids
// and the kernel's size parameters are formulas of the inputs' shapes and
// the device's SM count (evaluated here by an independent script for two
// sizes and two devices: G = T / 4 groups, 32 per block of 512 threads,
// at most 4 blocks per SM striding over them).
// RUN: rm -rf %t.dyn && indexpool-compile %S/Inputs/dynamic-pool.mlir --chip=sm_90 -o %t.dyn
// RUN: python3 %S/Inputs/eval_sizes.py %t.dyn/pool.sm_90.json 132 1000x64 1000 | FileCheck %s --check-prefix=DYN
// RUN: python3 %S/Inputs/eval_sizes.py %t.dyn/pool.sm_90.json 16 65536x64 65536 | FileCheck %s --check-prefix=DYN2
// A dynamic D too (the row kernels, their tail masks compared at run
// time): one thread per row, 256 rows per block.
// RUN: indexpool-compile %S/../Integration/CPU/quantize.mlir --function=dequant_i8_dynamic --chip=sm_90 -o %t.dyn
// RUN: python3 %S/Inputs/eval_sizes.py %t.dyn/dequant_i8_dynamic.sm_90.json 132 1000x200 1000 | FileCheck %s --check-prefix=DYND
// RUN: not indexpool-compile %s --chip=sm_90 --function=nope -o %t 2>&1 | FileCheck %s --check-prefix=NOFUNC
// An explicit --threads-per-block replaces the chip's configuration: 128
// threads = 4 warps x 4 groups, 256 / 16 = 16 blocks.
// RUN: indexpool-compile %s --chip=sm_89 --threads-per-block=128 -o %t.tpb && FileCheck %s --check-prefix=TPB < %t.tpb/kpool.sm_89.json
// RUN: not indexpool-compile %s --chip=sm_89 --threads-per-block=100 -o %t.tpb 2>&1 | FileCheck %s --check-prefix=BADTPB
// --input-shape specializes a dynamic function for one shape.
// RUN: indexpool-compile %S/Inputs/dynamic-pool.mlir --chip=sm_90 --function=pool --input-shape=0:1000x64 --input-shape=1:1000 -o %t
// RUN: FileCheck %s --check-prefix=SHAPED < %t/pool.sm_90.json
// RUN: not indexpool-compile %S/Inputs/dynamic-pool.mlir --chip=sm_90 --function=pool --input-shape=0:1000x64 -o %t 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not indexpool-compile %S/Inputs/dynamic-pool.mlir --chip=sm_90 --function=pool --input-shape=0:1000x64 --input-shape=1:999 -o %t 2>&1 | FileCheck %s --check-prefix=RELATION
// RUN: not indexpool-compile %S/Inputs/dynamic-pool.mlir --chip=sm_90 --function=pool --input-shape=0:1000x32 --input-shape=1:1000 -o %t 2>&1 | FileCheck %s --check-prefix=FIT
// RUN: not indexpool-compile %S/Inputs/dynamic-pool.mlir --chip=sm_90 --input-shape=0:1000x64 -o %t 2>&1 | FileCheck %s --check-prefix=NEEDFUNC
// RUN: not indexpool-compile %S/Inputs/dynamic-pool.mlir --chip=sm_90 --function=pool --input-shape=3:4 -o %t 2>&1 | FileCheck %s --check-prefix=NOARG

// WROTE: wrote {{.*}}kpool.sm_89.ptx and {{.*}}kpool.sm_89.json
// PTX: .target sm_89
// PTX: .entry kpool_kernel
// MLIR: gpu.binary
// CHIP: indexpool-compile: error: unknown chip 'sm_42'; known chips:
// EMIT: indexpool-compile: error: --emit must be ptx, cubin or mlir with --target=gpu, got 'elf'
// DYN: buffer 0 input 1000x64
// DYN-NEXT: buffer 1 input 1000
// DYN-NEXT: buffer 2 output 250x64
// DYN-NEXT: launch pool_kernel grid 8x1x1 params 250 1000 1000 8 8
// DYND: buffer 2 output 1000x200
// DYND-NEXT: launch dequant_i8_dynamic_kernel grid 4x1x1
// DYN2: buffer 2 output 16384x64
// DYN2-NEXT: launch pool_kernel grid 64x1x1 params 16384 65536 65536 512 64
// NOFUNC: indexpool-compile: error: no function @nope in
// TPB: "block": [
// TPB-NEXT: 128,
// TPB: "grid": [
// TPB-NEXT: 16,
// BADTPB: indexpool-compile: error: --threads-per-block must be a multiple of 32 in [32, 1024], got 100
// SHAPED: "buffers": [
// SHAPED: "role": "input",
// SHAPED-NEXT: "shape": [
// SHAPED-NEXT: 1000,
// SHAPED-NEXT: 64
// SHAPED: "role": "output",
// SHAPED-NEXT: "shape": [
// SHAPED-NEXT: 250,
// SHAPED-NEXT: 64
// MISSING: indexpool-compile: error: argument #1 of @pool has a dynamic size: give its shape with --input-shape=1:AxB...
// RELATION: indexpool-compile: error: indexpool.pool at {{.*}}dynamic-pool.mlir:2:12: scores must be [T] = [1000] or [T, D] = [1000, 64], got [999]
// FIT: indexpool-compile: error: --input-shape: [1000, 32] does not fit argument #0 of @pool
// NEEDFUNC: indexpool-compile: error: --input-shape needs --function=NAME (the shapes of one function's arguments)
// NOARG: indexpool-compile: error: --input-shape=3:4: argument #3 does not exist (the function takes 2 arguments)

// MANIFEST: "binary": {
// MANIFEST-NEXT: "format": "ptx",
// MANIFEST-NEXT: "path": "kpool.sm_89.ptx"
// MANIFEST: "buffers": [
// MANIFEST: "id": 0,
// MANIFEST-NEXT: "index": 0,
// MANIFEST-NEXT: "role": "input",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 1024,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "type": "bf16"
// MANIFEST: "role": "output",
// MANIFEST: "type": "f8E4M3FN"
// MANIFEST: "chip": "sm_89",
// MANIFEST: "computes": [
// MANIFEST: "op": "compress",
// MANIFEST-NEXT: "operands": {
// MANIFEST-NEXT: "bias": 2,
// MANIFEST-NEXT: "keys": 0,
// MANIFEST-NEXT: "scores": 1
// MANIFEST: "pow2_scale": true,
// MANIFEST: "rotate": true,
// MANIFEST: "function": "kpool",
// MANIFEST: "launches": [
// MANIFEST: "block": [
// MANIFEST-NEXT: 384,
// MANIFEST: "grid": [
// MANIFEST-NEXT: 6,
// MANIFEST: "kernel": "kpool_kernel",
// MANIFEST: "params": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 1

func.func @kpool(%keys: tensor<1024x64xbf16>, %scores: tensor<1024x64xf32>, %b: tensor<4x64xf32>)
    -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1024x64xbf16>, tensor<1024x64xf32>, tensor<4x64xf32>)
        -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>)
  return %q, %s, %w : tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>
}
