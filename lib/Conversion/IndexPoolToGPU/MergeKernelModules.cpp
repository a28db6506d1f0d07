//===- MergeKernelModules.cpp - one gpu.module per host module ------------===//

#include "indexpool/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLMERGEKERNELMODULES
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;

namespace {
struct IndexPoolMergeKernelModules
    : indexpool::impl::IndexPoolMergeKernelModulesBase<
          IndexPoolMergeKernelModules> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernels(module.getOps<gpu::GPUModuleOp>());
    if (kernels.size() < 2)
      return;
    gpu::GPUModuleOp target = kernels.front();
    SymbolTable targetSymbols(target);
    // Old @module::@func -> new @target::@name.
    DenseMap<SymbolRefAttr, SymbolRefAttr> moved;
    for (gpu::GPUModuleOp source : ArrayRef(kernels).drop_front()) {
      bool single = llvm::hasSingleElement(source.getOps());
      for (Operation &op : llvm::make_early_inc_range(source.getOps())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol) {
          op.emitOpError("cannot be moved to another gpu.module");
          return signalPassFailure();
        }
        StringAttr oldName = symbol.getNameAttr();
        // The source module's name is unique in the host module.
        std::string newName = source.getName().str();
        if (!single)
          newName += "_" + oldName.getValue().str();
        op.remove();
        symbol.setName(StringAttr::get(&getContext(), newName));
        targetSymbols.insert(&op);
        moved[SymbolRefAttr::get(source.getNameAttr(),
                                 {FlatSymbolRefAttr::get(oldName)})] =
            SymbolRefAttr::get(target.getNameAttr(),
                               {FlatSymbolRefAttr::get(symbol.getNameAttr())});
      }
      source.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = moved.find(launch.getKernel());
      if (it != moved.end())
        launch.setKernelAttr(it->second);
    });
  }
};
} // namespace
