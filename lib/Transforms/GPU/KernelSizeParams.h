//===- KernelSizeParams.h - dynamic buffers as pointer + sizes --*- C++ -*-===//
//
// What --indexpool-kernel-size-params does to each launch, also applied by
// the GPU emulator so that the emulated kernels read their buffers through
// the same pointer + sizes views as the compiled ones.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_TRANSFORMS_GPU_KERNELSIZEPARAMS_H
#define INDEXPOOL_LIB_TRANSFORMS_GPU_KERNELSIZEPARAMS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::indexpool {

/// Every buffer of dynamic size that a body of `launches` uses crosses as
/// a 1-element view of its first element plus its dynamic sizes (made once
/// per buffer, right after it is defined), and each body rebuilds the full
/// view from them. Fails with an error at the launch for a buffer that is
/// not row-major and contiguous.
LogicalResult passBuffersBySizes(ArrayRef<gpu::LaunchOp> launches);

} // namespace mlir::indexpool

#endif // INDEXPOOL_LIB_TRANSFORMS_GPU_KERNELSIZEPARAMS_H
