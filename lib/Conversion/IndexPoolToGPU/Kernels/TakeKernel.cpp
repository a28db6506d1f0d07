//===- TakeKernel.cpp - refine's take on the GPU --------------------------===//
//
// The last of refine's kernels (gather-score, topk, take): one thread per
// kept column (m, j) at a time, its token computed by the CPU's
// emitTakeEntry, so that both give -1 for padding candidates. Tiles of
// items_per_block query rows, as the expand kernel's.
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

void mlir::indexpool::gpukernels::emitTakeKernel(ImplicitLocOpBuilder &b,
                                                 Value candidates, Value keys,
                                                 Value indices, Value tokens,
                                                 const KernelLaunch &launch) {
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
      Value first = e.mul(tile, tileEntries);
      Value end = arith::MinUIOp::create(b, e.add(first, tileEntries), entries);
      e.forLoop(e.add(first, ids.thread), end, e.index(threads),
                [&](Value entry) {
        Value m = arith::DivUIOp::create(b, entry, dimK);
        Value j = arith::RemUIOp::create(b, entry, dimK);
        loops::emitTakeEntry(e, candidates, keys, indices, tokens, m, j);
      });
    });
  });
}
