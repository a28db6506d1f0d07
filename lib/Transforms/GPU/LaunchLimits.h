//===- LaunchLimits.h - CUDA's grid and block limits on launches -*- C++ -*-===//
//
// One check of a launch's constant sizes, shared by the GPU path
// (--indexpool-merge-kernel-modules, before a binary is written) and the GPU
// emulator, so that both refuse the same launches with the same message.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_TRANSFORMS_GPU_LAUNCHLIMITS_H
#define INDEXPOOL_LIB_TRANSFORMS_GPU_LAUNCHLIMITS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::indexpool {

/// Checks the constant grid and block sizes against the limits every
/// supported chip has (target::kMaxGridDims, kMaxBlockDims): an error at
/// `loc` beyond them. Otherwise true when a constant size is 0 (the launch
/// runs no thread), false when it runs.
FailureOr<bool> checkLaunchLimits(Location loc, gpu::KernelDim3 grid,
                                  gpu::KernelDim3 block);

} // namespace mlir::indexpool

#endif // INDEXPOOL_LIB_TRANSFORMS_GPU_LAUNCHLIMITS_H
