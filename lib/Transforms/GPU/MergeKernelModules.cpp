//===- MergeKernelModules.cpp - one gpu.module per host module ------------===//
//
// After gpu-kernel-outlining: launches of zero blocks are dropped (an empty
// op computes nothing, and CUDA rejects a zero grid), grids beyond CUDA's
// limits are errors, every remaining kernel moves into one gpu.module, and
// every name in it becomes a valid PTX identifier.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"

#include "LaunchLimits.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLMERGEKERNELMODULES
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;

/// `name` as a PTX identifier ([A-Za-z_][A-Za-z0-9_$]*, which NVPTX prints
/// unquoted). A name that already is one without '$' stays; any other is
/// "_" followed by the name with every byte outside [A-Za-z0-9_] (and a
/// leading digit) written as $XX. Names of the second kind contain '$' and
/// those of the first do not, and $XX decodes uniquely: different names
/// never map to the same identifier.
static std::string ptxIdentifier(StringRef name) {
  auto plain = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  if (!name.empty() && !llvm::isDigit(name.front()) && llvm::all_of(name, plain))
    return name.str();
  // '$' alone, not followed by two hex digits: no other name maps here.
  if (name.empty())
    return "_$";
  std::string out = "_";
  for (auto [i, c] : llvm::enumerate(name)) {
    if (plain(c) && !(i == 0 && llvm::isDigit(c))) {
      out += c;
      continue;
    }
    out += '$';
    out += llvm::hexdigit((static_cast<unsigned char>(c) >> 4) & 15);
    out += llvm::hexdigit(static_cast<unsigned char>(c) & 15);
  }
  return out;
}

namespace {
struct IndexPoolMergeKernelModules
    : mlir::indexpool::impl::IndexPoolMergeKernelModulesBase<
          IndexPoolMergeKernelModules> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(dropEmptyLaunches()))
      return signalPassFailure();
    eraseUnlaunchedKernels();
    if (failed(merge()))
      return signalPassFailure();
    renameForPTX();
  }

  /// Erases launches with a constant 0 in their grid or block: they run no
  /// thread. Constant sizes beyond what every chip allows are errors (CUDA
  /// programming guide, "Features and Technical Specifications").
  LogicalResult dropEmptyLaunches() {
    SmallVector<gpu::LaunchFuncOp> empty;
    WalkResult result = getOperation().walk([&](gpu::LaunchFuncOp launch) {
      FailureOr<bool> isEmpty = mlir::indexpool::checkLaunchLimits(
          launch.getLoc(), launch.getGridSizeOperandValues(),
          launch.getBlockSizeOperandValues());
      if (failed(isEmpty))
        return WalkResult::interrupt();
      if (*isEmpty)
        empty.push_back(launch);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
    for (gpu::LaunchFuncOp launch : empty)
      launch.erase();
    return success();
  }

  /// Kernels whose launches were all dropped, and modules left without a
  /// kernel, would only add empty code to the binary.
  void eraseUnlaunchedKernels() {
    ModuleOp module = getOperation();
    DenseSet<SymbolRefAttr> launched;
    module.walk(
        [&](gpu::LaunchFuncOp launch) { launched.insert(launch.getKernel()); });
    for (auto kernels :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
      bool anyKernel = false;
      for (auto func :
           llvm::make_early_inc_range(kernels.getOps<gpu::GPUFuncOp>())) {
        if (!func.isKernel())
          continue;
        auto ref = SymbolRefAttr::get(kernels.getNameAttr(),
                                      {FlatSymbolRefAttr::get(func)});
        if (launched.contains(ref))
          anyKernel = true;
        else
          func.erase();
      }
      if (!anyKernel)
        kernels.erase();
    }
  }

  /// Moves every kernel into the first gpu.module, renaming each after the
  /// module it came from (unique). With no kernel left at all, an empty
  /// gpu.module: a function whose ops are all empty still compiles to one
  /// binary (without kernels) and a manifest without launches.
  LogicalResult merge() {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernels(module.getOps<gpu::GPUModuleOp>());
    if (kernels.empty()) {
      auto builder = OpBuilder::atBlockEnd(module.getBody());
      gpu::GPUModuleOp::create(builder, module.getLoc(), "kernels");
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      UnitAttr::get(&getContext()));
      return success();
    }
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
          return failure();
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
    updateLaunches(moved);
    return success();
  }

  /// Kernel names come from the host function's name, which may be any
  /// string (`func.func @"my kernel-1.x"`); NVPTX aborts on names PTX does
  /// not allow. The module's own name becomes a PTX identifier too.
  void renameForPTX() {
    ModuleOp module = getOperation();
    DenseMap<SymbolRefAttr, SymbolRefAttr> renamed;
    for (auto kernels : module.getOps<gpu::GPUModuleOp>()) {
      StringAttr oldModule = kernels.getNameAttr();
      auto newModule =
          StringAttr::get(&getContext(), ptxIdentifier(oldModule.getValue()));
      // All names at once, then every reference through the same map: a
      // new name may be an old name of another symbol.
      DenseMap<StringAttr, StringAttr> names;
      for (Operation &op : kernels.getOps()) {
        StringAttr oldName = SymbolTable::getSymbolName(&op);
        if (!oldName)
          continue;
        auto newName =
            StringAttr::get(&getContext(), ptxIdentifier(oldName.getValue()));
        names[oldName] = newName;
        SymbolTable::setSymbolName(&op, newName);
        renamed[SymbolRefAttr::get(oldModule,
                                   {FlatSymbolRefAttr::get(oldName)})] =
            SymbolRefAttr::get(newModule, {FlatSymbolRefAttr::get(newName)});
      }
      AttrTypeReplacer references;
      references.addReplacement(
          [&](SymbolRefAttr ref) -> std::optional<Attribute> {
            auto it = names.find(ref.getRootReference());
            if (it == names.end())
              return std::nullopt;
            return SymbolRefAttr::get(it->second, ref.getNestedReferences());
          });
      references.recursivelyReplaceElementsIn(kernels);
      if (newModule != oldModule)
        SymbolTable::setSymbolName(kernels, newModule);
    }
    updateLaunches(renamed);
  }

  void updateLaunches(const DenseMap<SymbolRefAttr, SymbolRefAttr> &map) {
    getOperation().walk([&](gpu::LaunchFuncOp launch) {
      auto it = map.find(launch.getKernel());
      if (it != map.end())
        launch.setKernelAttr(it->second);
    });
  }
};
} // namespace
