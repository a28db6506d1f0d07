//===- ConfigureCpu.cpp - --indexpool-configure-cpu -----------------------===//
//
// Attaches indexpool.vector_width to the indexpool ops a CPU entry of the
// tuning database matches (TuningDb.cpp): an entry of the `cpu` target
// ("chip": "cpu:NAME") before one of any ("chip": "cpu");
// --indexpool-to-loops reads it in place of its module-wide vector-width.
//
//===----------------------------------------------------------------------===//

#include "TuningDb.h"

#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Transforms/Passes.h"
#include "indexpool/Target/CpuTargets.h"
#include "indexpool/Transforms/TuningDb.h"

#include "llvm/Support/DebugLog.h"

#include <memory>

#define DEBUG_TYPE "indexpool-configure-cpu"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLCONFIGURECPU
#include "indexpool/Dialect/Passes.h.inc"
} // namespace mlir::indexpool

using namespace mlir;
using namespace mlir::indexpool;
using tuning::TuningDb;
using tuning::TuningEntry;

namespace {

struct IndexPoolConfigureCpu
    : mlir::indexpool::impl::IndexPoolConfigureCpuBase<IndexPoolConfigureCpu> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (tuningDb.empty())
      return emitError(UnknownLoc::get(context))
             << "--indexpool-configure-cpu needs tuning-db=FILE";
    if (!cpu.empty() && !::indexpool::target::lookupCpuTarget(cpu))
      return emitError(UnknownLoc::get(context))
             << "--indexpool-configure-cpu: "
             << ::indexpool::target::unknownCpuTargetMessage(cpu);
    // Shared, read-only, by the copies the pass manager makes for threads.
    auto db = std::make_shared<TuningDb>();
    if (failed(tuning::loadTuningDb(context, tuningDb, *db)))
      return failure();
    entries = std::move(db);
    return success();
  }

  void runOnOperation() override {
    Builder b(&getContext());
    getOperation()->walk([&](Operation *op) {
      if (!isa_and_present<IndexPoolDialect>(op->getDialect()))
        return;
      StringRef opName = op->getName().stripDialect();
      tuning::Sizes sizes = tuning::opSizes(op);
      // An entry measured on this CPU target first, then one for any.
      const TuningEntry *entry = nullptr;
      if (!cpu.empty())
        entry = tuning::findEntry(*entries, ::indexpool::target::cpuChipOf(cpu),
                                  opName, sizes);
      if (!entry)
        entry = tuning::findEntry(*entries, tuning::kCpuChip, opName, sizes);
      if (!entry)
        return;
      LDBG() << opName << ": tuning-db entry " << entry->number
             << ", vector width " << *entry->vectorWidth;
      op->setAttr(kVectorWidthAttrName,
                  b.getI64IntegerAttr(*entry->vectorWidth));
    });
  }

private:
  std::shared_ptr<const TuningDb> entries;
};

} // namespace
