//===- TileRows.cpp - row loops into blocks x threads ---------------------===//

#include "indexpool/Conversion/Passes.h"
#include "indexpool/Target/Chips.h"

#include "DeviceSmCount.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLTILEROWS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;

// What --indexpool-to-loops records on a row loop from the op's
// #indexpool.launch, besides the block size: the rows of a block's tile,
// and for grid_stride the blocks of its size one SM holds (the names of
// Conversion/Common/Emitter.h, which this layer does not include).
static constexpr StringLiteral kItemsAttr = "indexpool.items_per_block";
static constexpr StringLiteral kBlocksPerSMAttr = "indexpool.blocks_per_sm";

static int64_t intAttr(Operation *op, StringRef name, int64_t otherwise) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return otherwise;
}

/// The rows [0, n) of a 1-d loop as blocks (outer loop) x threads (inner
/// loop), each block handling tiles of `items` rows: its threads take rows
/// t, t + threads, ... of the tile, and with `blocksPerSM` one wave of
/// blocks (that many per SM of the device that runs it) strides over the
/// tiles. The grid is computed with unsigned index arithmetic, which the
/// manifest writes as formulas of the runtime sizes.
static void tileRows(scf::ParallelOp loop, int64_t threads, int64_t items,
                     std::optional<int64_t> blocksPerSM) {
  ImplicitLocOpBuilder b(loop.getLoc(), loop);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, v);
  };
  // Constants before the loops: one each, not one per nesting level.
  int64_t steps = llvm::divideCeil(items, threads);
  Value n = loop.getUpperBound()[0], zero = index(0), one = index(1);
  Value cThreads = index(threads), cItems = index(items);
  Value cSteps = steps > 1 ? index(steps) : Value();
  Value tiles = arith::CeilDivUIOp::create(b, n, cItems);
  Value grid = tiles;
  if (blocksPerSM)
    grid = arith::MinUIOp::create(
        b, tiles, mlir::indexpool::createDeviceWave(b, b.getLoc(), *blocksPerSM));
  auto blocks = scf::ParallelOp::create(b, zero, grid, one);
  b.setInsertionPointToStart(blocks.getBody());
  auto lanes = scf::ParallelOp::create(b, zero, cThreads, one);
  b.setInsertionPointToStart(lanes.getBody());
  Value block = blocks.getInductionVars()[0];
  Value thread = lanes.getInductionVars()[0];
  if (blocksPerSM) {
    auto stride = scf::ForOp::create(b, block, tiles, grid);
    b.setInsertionPointToStart(stride.getBody());
    block = stride.getInductionVar();
  }
  Value step = zero;
  if (cSteps) {
    auto perThread = scf::ForOp::create(b, zero, cSteps, one);
    b.setInsertionPointToStart(perThread.getBody());
    step = perThread.getInductionVar();
  }
  Value slot = arith::AddIOp::create(
      b, arith::MulIOp::create(b, step, cThreads), thread);
  Value row = arith::AddIOp::create(
      b, arith::MulIOp::create(b, block, cItems), slot);
  Value inside = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, slot, cItems),
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, n));
  auto guard = scf::IfOp::create(b, inside, /*withElseRegion=*/false);
  // The row's body, without its scf.reduce, into the guard.
  Block *body = loop.getBody();
  body->getArgument(0).replaceAllUsesWith(row);
  Block *then = guard.thenBlock();
  then->getOperations().splice(then->begin(), body->getOperations(),
                               body->begin(), std::prev(body->end()));
  loop.erase();
}

namespace {
struct IndexPoolTileRows
    : mlir::indexpool::impl::IndexPoolTileRowsBase<IndexPoolTileRows> {
  using Base::Base;

  /// Before any IR is touched, and at no operation: an error at the
  /// function would print the function after it. The blocks become GPU
  /// blocks: the one threads-per-block rule of the target table.
  LogicalResult initialize(MLIRContext *context) override {
    std::string rule =
        ::indexpool::target::threadsPerBlockRule(threadsPerBlock);
    if (!rule.empty())
      return emitError(UnknownLoc::get(context))
             << "indexpool-tile-rows: " << rule;
    return success();
  }

  void runOnOperation() override {
    // On the module: a grid-stride wave declares the SM-count query there.
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        outermost.push_back(loop);
    });
    for (scf::ParallelOp loop : outermost) {
      int64_t threads =
          intAttr(loop, "indexpool.threads_per_block", threadsPerBlock);
      // A 1-d loop over [0, n) without reductions, as --indexpool-to-loops
      // builds them, with the tile and wave of the launch configuration.
      int64_t items = intAttr(loop, kItemsAttr, 0);
      std::optional<int64_t> blocksPerSM;
      if (loop->hasAttr(kBlocksPerSMAttr))
        blocksPerSM = intAttr(loop, kBlocksPerSMAttr, 1);
      if (loop.getNumLoops() == 1 && loop.getNumResults() == 0 &&
          isConstantIntValue(loop.getLowerBound()[0], 0) &&
          isConstantIntValue(loop.getStep()[0], 1) &&
          (!blocksPerSM || *blocksPerSM > 0)) {
        tileRows(loop, threads, items > 0 ? items : threads, blocksPerSM);
        continue;
      }
      SmallVector<int64_t> sizes(loop.getNumLoops(), 1);
      sizes[0] = threads;
      // Constant inner bounds with an in-bounds check: what the mapping to
      // GPU threads needs.
      scf::tileParallelLoop(loop, sizes, /*noMinMaxBounds=*/true);
    }
  }
};
} // namespace
