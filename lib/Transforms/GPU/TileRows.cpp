//===- TileRows.cpp - row loops into blocks x threads ---------------------===//

#include "indexpool/Conversion/Passes.h"
#include "indexpool/Target/Chips.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLTILEROWS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;

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
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        outermost.push_back(loop);
    });
    for (scf::ParallelOp loop : outermost) {
      int64_t threads = threadsPerBlock;
      if (auto attr = loop->getAttrOfType<IntegerAttr>(
              "indexpool.threads_per_block"))
        threads = attr.getInt();
      SmallVector<int64_t> sizes(loop.getNumLoops(), 1);
      sizes[0] = threads;
      // Constant inner bounds with an in-bounds check: what the mapping to
      // GPU threads needs.
      scf::tileParallelLoop(loop, sizes, /*noMinMaxBounds=*/true);
    }
  }
};
} // namespace
