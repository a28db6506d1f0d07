//===- KernelBuilder.h - gpu.launch building blocks -------------*- C++ -*-===//
//
// What the fused GPU kernels share: a gpu.launch with its thread and block
// ids, warp shuffles, barriers and shared-memory buffers. The arithmetic
// (typed loads, roundings, softmax, butterflies) is the loop lowering's
// Emitter (Common/Emitter.h), so that CPU and GPU compute the same way.
// Private to lib/Conversion/IndexPoolToGPU.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_KERNELBUILDER_H
#define INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_KERNELBUILDER_H

#include "indexpool/Target/Chips.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::indexpool::gpukernels {

using ::indexpool::target::kWarpSize;

/// The ids a kernel body uses (index values).
struct KernelIds {
  Value thread; ///< thread id x
  Value block;  ///< block id x
  Value blockY; ///< block id y
  ArrayRef<BlockArgument> shared; ///< the workgroup buffers, in order
};

/// Builds `gpu.launch` with grid (gridX, gridY) and `threads` threads per
/// block, with one workgroup (shared memory) buffer per type in `shared`,
/// and fills its body with `body`. When `gridX` or `gridY` is zero at run
/// time the launch is skipped (a zero-sized grid is an error in CUDA).
void launchKernel(ImplicitLocOpBuilder &b, Value gridX, Value gridY,
                  int64_t threads, TypeRange shared,
                  function_ref<void(const KernelIds &)> body);

/// A 1-d f32/i32/i64 buffer of `n` elements in shared memory.
MemRefType sharedBuffer(MLIRContext *ctx, int64_t n, Type element);

/// `v` (a 32-bit scalar) from lane `lane ^ mask` of the warp; every lane of
/// the warp must execute it.
Value shuffleXor(ImplicitLocOpBuilder &b, Value v, int64_t mask);

/// The same lane exchange for each element of a vector.
Value shuffleXorVector(ImplicitLocOpBuilder &b, Value v, int64_t mask);

/// Block-wide barrier (bar.sync): every thread of the block must reach it.
void barrier(ImplicitLocOpBuilder &b);

} // namespace mlir::indexpool::gpukernels

#endif // INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_KERNELBUILDER_H
