//===- Configure.cpp - --indexpool-configure ------------------------------===//
//
// Attaches #indexpool.launch to every indexpool op (docs/design.md): the cost
// model's choice for the chip (CostModel.cpp), or the fields of the first
// matching entry of a JSON tuning database (TuningDb.cpp). This file turns
// ops into the model's plain description; the model itself has no MLIR in
// it.
//
//===----------------------------------------------------------------------===//

#include "TuningDb.h"

#include "indexpool/Dialect/IndexPoolAttrs.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Transforms/CostModel.h"
#include "indexpool/Transforms/CostModelOps.h"
#include "indexpool/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/DebugLog.h"

#include <optional>

#define DEBUG_TYPE "indexpool-configure"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLCONFIGURE
#include "indexpool/Dialect/Passes.h.inc"
} // namespace mlir::indexpool

using namespace mlir;
using namespace mlir::indexpool;
namespace cost = ::indexpool::cost;
namespace target = ::indexpool::target;
using tuning::TuningDb;
using tuning::TuningEntry;

//===----------------------------------------------------------------------===//
// Ops as the cost model sees them
//===----------------------------------------------------------------------===//

static int64_t dimOf(Value v, unsigned i) {
  return cast<RankedTensorType>(v.getType()).getDimSize(i);
}

static int elemBytesOf(Value v) {
  Type element = cast<RankedTensorType>(v.getType()).getElementType();
  return std::max(1u, element.getIntOrFloatBitWidth() / 8);
}

/// Bytes of one row (everything but the first dimension) of `v`; dynamic
/// when a size is (or the product overflows).
static int64_t rowBytesOf(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t bytes = elemBytesOf(v);
  for (int64_t size : type.getShape().drop_front())
    bytes = mulDims(bytes, size);
  return bytes;
}

static cost::OpDesc rowsDesc(int64_t items, Value main, int64_t rowElems,
                             int64_t bytesPerItem) {
  cost::OpDesc desc;
  desc.kind = cost::OpKind::Rows;
  desc.items = items;
  desc.rowElems = rowElems;
  desc.elemBytes = elemBytesOf(main);
  desc.bytesPerItem = bytesPerItem;
  return desc;
}

/// pool and compress read P key rows and P score rows per pool.
template <typename PoolLike>
static cost::OpDesc poolDesc(PoolLike op) {
  int64_t p = op.getPoolSize();
  int64_t t = dimOf(op.getKeys(), 0), d = dimOf(op.getKeys(), 1);
  int64_t g = numGroups(t, p);
  int64_t perToken =
      addDims(rowBytesOf(op.getKeys()), rowBytesOf(op.getScores()));
  return rowsDesc(g, op.getKeys(), d, mulDims(p, perToken));
}

/// score and select stream key rows (and their scales) past the query.
template <typename ScoreLike>
static cost::OpDesc keyStreamDesc(ScoreLike op) {
  Value keys = op.getKeys();
  cost::OpDesc desc;
  desc.kind = cost::OpKind::KeyStream;
  desc.items = dimOf(keys, 0);
  desc.rowElems = dimOf(keys, 1);
  desc.elemBytes = elemBytesOf(keys);
  desc.bytesPerItem = addDims(rowBytesOf(keys), op.getScales() ? 4 : 0);
  return desc;
}

std::optional<cost::OpDesc> mlir::indexpool::describeForCostModel(
    Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<cost::OpDesc>>(op)
      .Case<PoolOp, CompressOp>([](auto op) { return poolDesc(op); })
      .Case<HadamardOp>([](HadamardOp op) {
        auto type = op.getInput().getType();
        int64_t d = dimOf(op.getInput(), type.getRank() - 1);
        int64_t n = 1;
        for (unsigned i = 0; i + 1 < type.getRank(); ++i)
          n = mulDims(n, dimOf(op.getInput(), i));
        return rowsDesc(n, op.getInput(), d,
                        mulDims(d, elemBytesOf(op.getInput())));
      })
      .Case<QuantizeOp>([](QuantizeOp op) {
        int64_t n = dimOf(op.getInput(), 0), d = dimOf(op.getInput(), 1);
        return rowsDesc(n, op.getInput(), d, rowBytesOf(op.getInput()));
      })
      .Case<DequantizeOp>([](DequantizeOp op) {
        int64_t n = dimOf(op.getCodes(), 0), d = dimOf(op.getCodes(), 1);
        return rowsDesc(n, op.getCodes(), d,
                        addDims(rowBytesOf(op.getCodes()), 4));
      })
      .Case<ResidualOp>([](ResidualOp op) {
        int64_t p = op.getPoolSize();
        int64_t g = dimOf(op.getPooled(), 0), d = dimOf(op.getKeys(), 1);
        return rowsDesc(g, op.getKeys(), d,
                        addDims(mulDims(p, rowBytesOf(op.getKeys())),
                                rowBytesOf(op.getPooled())));
      })
      .Case<ReconstructOp>([](ReconstructOp op) {
        int64_t p = op.getPoolSize();
        int64_t g = dimOf(op.getPooled(), 0), d = dimOf(op.getPooled(), 1);
        int64_t residual =
            op.getResidual() ? mulDims(p, rowBytesOf(op.getResidual())) : 0;
        return rowsDesc(g, op.getPooled(), d,
                        addDims(rowBytesOf(op.getPooled()), residual));
      })
      .Case<ScoreOp>([](ScoreOp op) { return keyStreamDesc(op); })
      .Case<SelectOp>([](SelectOp op) { return keyStreamDesc(op); })
      .Case<RefineOp>([](RefineOp op) {
        // The gather-score kernel streams the C candidates of each row:
        // each an id and its key row (and scale). Its topk and take run
        // with the same configuration.
        cost::OpDesc desc = keyStreamDesc(op);
        desc.items = dimOf(op.getCandidates(), 1);
        desc.bytesPerItem = addDims(desc.bytesPerItem, 4);
        return desc;
      })
      .Case<TopKOp>([](TopKOp op) {
        Value logits = op.getLogits();
        int64_t m = dimOf(logits, 0), n = dimOf(logits, 1);
        cost::OpDesc desc;
        desc.kind = cost::OpKind::RowSelect;
        desc.items = m;
        desc.rowElems = n;
        desc.elemBytes = elemBytesOf(logits);
        desc.bytesPerItem = addDims(mulDims(n, 4), op.getValid() ? 4 : 0);
        return desc;
      })
      .Case<ExpandOp>([](ExpandOp op) {
        int64_t m = dimOf(op.getIndices(), 0), k = dimOf(op.getIndices(), 1);
        return rowsDesc(m, op.getIndices(), k, rowBytesOf(op.getIndices()));
      })
      .Default([](Operation *) { return std::nullopt; });
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static GridPolicy toGridPolicy(cost::Grid grid) {
  return grid == cost::Grid::Tiled ? GridPolicy::Tiled : GridPolicy::GridStride;
}

namespace {

struct IndexPoolConfigure
    : mlir::indexpool::impl::IndexPoolConfigureBase<IndexPoolConfigure> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    chipInfo = target::lookupChip(chip);
    if (!chipInfo) {
      if (chip.empty())
        return emitError(loc)
               << "--indexpool-configure needs chip=NAME; known chips: "
               << target::knownChipNames();
      return emitError(loc) << "--indexpool-configure: "
                            << target::unknownChipMessage(chip);
    }
    // Shared, read-only, by the copies the pass manager makes for threads.
    auto db = std::make_shared<TuningDb>();
    if (!tuningDb.empty() &&
        failed(tuning::loadTuningDb(context, tuningDb, *db)))
      return failure();
    entries = std::move(db);
    return success();
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (!isa_and_present<IndexPoolDialect>(op->getDialect()))
        return WalkResult::advance();
      std::optional<cost::OpDesc> desc = describeForCostModel(op);
      if (!desc)
        return WalkResult::advance();

      cost::Launch launch = cost::chooseLaunch(*chipInfo, *desc);
      GridPolicy grid = toGridPolicy(launch.grid);
      StringRef opName = op->getName().stripDialect();
      const TuningEntry *entry = tuning::findEntry(
          *entries, chipInfo->name, opName, tuning::opSizes(op));
      if (entry) {
        LDBG() << opName << ": tuning-db entry " << entry->number;
        launch.threadsPerBlock =
            entry->threadsPerBlock.value_or(launch.threadsPerBlock);
        launch.itemsPerBlock =
            entry->itemsPerBlock.value_or(launch.itemsPerBlock);
        launch.elementsPerThread =
            entry->elementsPerThread.value_or(launch.elementsPerThread);
        launch.vectorBytes = entry->vectorBytes.value_or(launch.vectorBytes);
        grid = entry->grid.value_or(grid);
      }

      // The model's values and each database field were checked already;
      // this only guards rules that would relate the fields.
      auto emitInvalid = [&]() {
        InFlightDiagnostic diag = op->emitError();
        diag << "invalid launch configuration";
        if (entry)
          diag << " (tuning-db '" << tuningDb << "' entry " << entry->number
               << ")";
        diag << ": ";
        return diag;
      };
      LaunchAttr attr = LaunchAttr::getChecked(
          function_ref<InFlightDiagnostic()>(emitInvalid), context,
          StringRef(chipInfo->name), launch.threadsPerBlock,
          launch.itemsPerBlock, launch.elementsPerThread, launch.vectorBytes,
          grid);
      if (!attr)
        return WalkResult::interrupt();
      op->setAttr(kLaunchAttrName, attr);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

private:
  const target::ChipInfo *chipInfo = nullptr;
  std::shared_ptr<const TuningDb> entries;
};

} // namespace
