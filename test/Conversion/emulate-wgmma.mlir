// The GPU emulator's warpgroup MMA (--indexpool-emulate-gpu-kernels): the
// sm_90a score kernels leave no wgmma, wgmma fence / commit / wait or proxy
// fence behind (each thread's accumulators become loops over k of loads
// from the team's shared buffer, which the descriptor's start address
// locates in it); a wgmma of another kind, and a descriptor not built from
// one shared i8 buffer's address, are refused with one error each.
// RUN: indexpool-opt %S/../Integration/GPUEmulator/score-wgmma.mlir --indexpool-to-gpu-kernels=chip=sm_90a --indexpool-emulate-gpu-kernels=sm-count=132 | FileCheck %s
// RUN: indexpool-opt %s -split-input-file --indexpool-emulate-gpu-kernels -verify-diagnostics

// CHECK-LABEL: func.func @decode
// CHECK-NOT: nvvm.
// CHECK: omp.parallel
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK-NOT: nvvm.
// CHECK-LABEL: func.func @wide_heads
// CHECK-NOT: nvvm.

// An f16 wgmma: not one the kernels emit.
func.func @f16_wgmma(%out: memref<128xf32>, %buffer: memref<1024xi8>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %base = memref.extract_aligned_pointer_as_index %buffer : memref<1024xi8> -> index
    %desc = arith.index_cast %base : index to i64
    %acc = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
    // expected-error @+1 {{the GPU emulator handles only wgmma m64nNk16 on bf16 or m64nNk32 on e4m3 with K-major A and B, unscaled inputs and f32 accumulators}}
    %d = nvvm.wgmma.mma_async %desc, %desc, %acc, <m = 64, n = 8, k = 16>,
        D [<f32>, <one>], A [<f16>, <one>, <row>], B [<f16>, <one>, <col>]
        : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
    %v = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %v, %out[%tx] : memref<128xf32>
    gpu.terminator
  }
  return
}

// -----

// A descriptor that is a constant: no buffer to read.
func.func @constant_descriptor(%out: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %desc = arith.constant 0 : i64
    %acc = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
    // expected-error @+1 {{the GPU emulator reads wgmma operands only from a descriptor built from one 1-d i8 shared buffer}}
    %d = nvvm.wgmma.mma_async %desc, %desc, %acc, <m = 64, n = 8, k = 16>,
        D [<f32>, <one>], A [<bf16>, <one>, <row>], B [<bf16>, <one>, <col>]
        : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
    %v = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %v, %out[%tx] : memref<128xf32>
    gpu.terminator
  }
  return
}
