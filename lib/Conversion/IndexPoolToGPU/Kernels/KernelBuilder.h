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

#include <optional>

namespace mlir::indexpool::loops {
class Emitter;
} // namespace mlir::indexpool::loops

namespace mlir::indexpool::gpukernels {

using ::indexpool::target::kWarpSize;

/// The ids a kernel body uses (index values).
struct KernelIds {
  Value thread; ///< thread id x
  Value block;  ///< block id x
  Value blockY; ///< block id y
  ArrayRef<BlockArgument> shared; ///< the workgroup buffers, in order
};

/// An op's #indexpool.launch as the kernels read it. An op without one
/// leaves every field but the block size unset: each kernel then makes its
/// own choice (GPUKernels.h says which).
struct KernelLaunch {
  int64_t threadsPerBlock = 0;
  /// Work items per tile; 0: the kernel's own tile.
  int64_t itemsPerBlock = 0;
  /// The width of the row accesses and a thread's share; 0: the kernel's.
  int64_t elementsPerThread = 0, vectorBytes = 0;
  /// grid_stride (true) or tiled (false); unset: the kernel's policy.
  std::optional<bool> gridStride;
  /// The chip's per-SM limits (ChipInfo): how many blocks of a size an SM
  /// holds, its shared memory and its 32-bit registers.
  int64_t maxThreadsPerSM = 0, maxBlocksPerSM = 0;
  int64_t sharedBytesPerSM = 0, registersPerSM = 0;
  /// The registers a thread of the kernel is built for, where the kernel
  /// says (0: not said). Then the blocks an SM holds count them, and ptxas
  /// is told that residency (minBlocksPerSM), which caps its registers
  /// there: left to itself it may aim one block higher and spill.
  int64_t threadRegisters = 0;

  /// Blocks of `threads` threads one SM holds at once, as far as threads,
  /// the block limit and the threadRegisters allow (at least 1).
  int64_t blocksPerSM(int64_t threads) const;
  /// What launchKernel's minBlocksPerSM says for this launch: the blocks
  /// an SM holds with threadRegisters said, where more than one, else 0
  /// (no hint).
  int64_t registerResidency(int64_t threads) const;
};

/// The blocks a kernel of `tiles` tiles launches: one per tile, or with
/// `gridStride` one wave, min(tiles, SM count x `blocksPerSM`), where the
/// SM count is the device's, asked for at run time (GPU/DeviceSmCount.h)
/// (index values).
Value gridSize(ImplicitLocOpBuilder &b, Value tiles, bool gridStride,
               int64_t blocksPerSM);

/// Runs `body(tile)` for the tiles of block `block`: that one tile, or with
/// `gridStride` the tiles block, block + grid, ... below `tiles`. The trip
/// count is the same for every thread of a block, so barriers and
/// shuffles in `body` stay uniform.
void forEachTile(ImplicitLocOpBuilder &b, Value block, Value grid,
                 Value tiles, bool gridStride,
                 function_ref<void(Value tile)> body);

/// Builds `gpu.launch` with grid (gridX, gridY) and `threads` threads per
/// block, with one workgroup (shared memory) buffer per type in `shared`,
/// and fills its body with `body`. A grid with a zero runs no block: the
/// runtime skips such a launch (docs/manifest.md), the emulator's block loop
/// has no iteration. `minBlocksPerSM` > 0: the blocks an SM must hold at
/// once, when the kernel is built for that few (kMinBlocksPerSMAttrName),
/// so that ptxas does not cap its registers for more and spill.
void launchKernel(ImplicitLocOpBuilder &b, Value gridX, Value gridY,
                  int64_t threads, TypeRange shared,
                  function_ref<void(const KernelIds &)> body,
                  int64_t minBlocksPerSM = 0);

/// Keeps the scf.for that defines `loopResult` (a result of it) a loop:
/// neither LLVM nor ptxas unrolls it (`.pragma "nounroll"` in the PTX).
/// For loops whose unrolled bodies ptxas would overlap past its register
/// target, and spill.
void keepRolled(Value loopResult);

/// A kernel of one thread per item of [0, count()), in blocks of up to 256
/// threads (the helper kernels: copies, per-row bookkeeping, gathers,
/// conversions), one per tile of items. `count` emits the number from
/// buffer sizes, once for the grid and once in the kernel.
void forEachItem(loops::Emitter &e, const KernelLaunch &launch,
                 function_ref<Value()> count,
                 function_ref<void(Value item)> body);

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
