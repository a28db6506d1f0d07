//===- ExpandKernel.cpp - expand and refine's take on the GPU -------------===//
//
// One thread per entry (m, j) of an [M, k] index matrix at a time. expand:
// the selected pool's P token indices in one store, computed by the CPU's
// emitExpandEntry, so that both give -1 for negative indices and for those
// whose tokens would not fit in i32. take (the last of refine's kernels,
// after gather-score and topk): the kept candidate's token, by the CPU's
// emitTakeEntry, -1 for padding. A block handles a tile of items_per_block
// query rows (one block per tile, or a wave of blocks striding over the
// tiles); its threads take the tile's entries in order.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "KernelBuilder.h"

#include "Common/Emitter.h"
#include "Common/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

/// Launches one thread per entry (m, j) of `indices` [M, k] at a time,
/// calling `entry` for it.
static void emitEntryKernel(
    ImplicitLocOpBuilder &b, Value indices, const KernelLaunch &launch,
    function_ref<void(Emitter &, Value m, Value j)> entry) {
  Emitter e(b, 1, /*stackScopes=*/false);
  const int64_t threads = launch.threadsPerBlock;
  // Without a tile: as many rows as the block has threads for, at least one.
  auto type = cast<MemRefType>(indices.getType());
  int64_t items = launch.itemsPerBlock;
  if (!items)
    items = type.isDynamicDim(1) || type.getDimSize(1) == 0
                ? 1
                : std::max<int64_t>(1, threads / type.getDimSize(1));
  const bool gridStride = launch.gridStride.value_or(false);
  Value tiles =
      arith::CeilDivUIOp::create(b, e.dim(indices, 0), e.index(items));
  Value grid = gridSize(b, tiles, gridStride, launch.blocksPerSM(threads));
  launchKernel(b, grid, e.index(1), threads, {}, [&](const KernelIds &ids) {
    Value dimM = e.dim(indices, 0), dimK = e.dim(indices, 1);
    Value entries = e.mul(dimM, dimK);
    Value tileEntries = e.mul(e.index(items), dimK);
    forEachTile(b, ids.block, grid, tiles, gridStride, [&](Value tile) {
      // The tile's entries (m, j), flattened: consecutive threads take
      // consecutive entries.
      Value first = e.mul(tile, tileEntries);
      Value end = arith::MinUIOp::create(b, e.add(first, tileEntries), entries);
      e.forLoop(e.add(first, ids.thread), end, e.index(threads),
                [&](Value flat) {
        Value m = arith::DivUIOp::create(b, flat, dimK);
        Value j = arith::RemUIOp::create(b, flat, dimK);
        entry(e, m, j);
      });
    });
  });
}

void mlir::indexpool::gpukernels::emitExpandKernel(ImplicitLocOpBuilder &b,
                                                   Value indices, Value tokens,
                                                   int64_t poolSize,
                                                   const KernelLaunch &launch) {
  emitEntryKernel(b, indices, launch, [&](Emitter &e, Value m, Value j) {
    loops::emitExpandEntry(e, indices, tokens, poolSize, m, j);
  });
}

void mlir::indexpool::gpukernels::emitTakeKernel(ImplicitLocOpBuilder &b,
                                                 Value candidates, Value keys,
                                                 Value indices, Value tokens,
                                                 const KernelLaunch &launch) {
  emitEntryKernel(b, indices, launch, [&](Emitter &e, Value m, Value j) {
    loops::emitTakeEntry(e, candidates, keys, indices, tokens, m, j);
  });
}
