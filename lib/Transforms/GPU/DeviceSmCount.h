//===- DeviceSmCount.h - the SM count of the device at launch ---*- C++ -*-===//
//
// Grid-stride kernels launch one wave of blocks: the device's SM count x the
// blocks an SM holds. The SM count is not the chip table's but the device's,
// known only when the function runs: the host code asks for it with a call
// to a declared function, which the manifest writes as the `sm_count` size
// (docs/manifest.md) and the GPU emulator replaces by the chip's count.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_TRANSFORMS_GPU_DEVICESMCOUNT_H
#define INDEXPOOL_LIB_TRANSFORMS_GPU_DEVICESMCOUNT_H

#include "mlir/IR/Builders.h"

namespace mlir::func {
class CallOp;
} // namespace mlir::func

namespace mlir::indexpool {

/// The name of the declared function `() -> index` that stands for the
/// device's multiprocessor count.
constexpr llvm::StringLiteral kDeviceSmCountFunction =
    "__indexpool_device_sm_count";

/// The device's SM count (index), as a call inserted at `b`'s insertion
/// point; declares the function in the enclosing module when needed.
Value createDeviceSmCount(OpBuilder &b, Location loc);

/// Whether `op` is such a call.
bool isDeviceSmCount(Operation *op);

/// `smCount` x `blocksPerSM` blocks (index): one wave of a grid-stride
/// kernel on the device that runs it.
Value createDeviceWave(OpBuilder &b, Location loc, int64_t blocksPerSM);

} // namespace mlir::indexpool

#endif // INDEXPOOL_LIB_TRANSFORMS_GPU_DEVICESMCOUNT_H
