//===- OutlineKernels.cpp - outlining that keeps residency hints ----------===//
//
// Upstream gpu-kernel-outlining copies a gpu.launch's known block and grid
// sizes to its gpu.func and nothing else. A fused kernel built to run one
// block per SM (a top-k block per row) says so on its launch
// (kMinBlocksPerSMAttrName); without `.minnctapersm` ptxas caps the
// registers for the occupancy it aims for by itself (two blocks of 1024
// threads: 32 registers) and spills. This pass runs the outlining as a
// nested pipeline and puts each hint on the kernel as nvvm.minctasm, which
// the NVVM lowering keeps and LLVM prints as .minnctapersm.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLOUTLINEKERNELS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;

namespace {
struct OutlineKernels
    : mlir::indexpool::impl::IndexPoolOutlineKernelsBase<OutlineKernels> {
  void getDependentDialects(DialectRegistry &registry) const override {
    IndexPoolOutlineKernelsBase::getDependentDialects(registry);
    outlining()->getDependentDialects(registry);
  }

  static std::unique_ptr<Pass> outlining() {
    return createGpuKernelOutliningPass();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef hintName = mlir::indexpool::kMinBlocksPerSMAttrName;
    // Per launch, in walk order: its hint, or 0 (none).
    SmallVector<int64_t> hints;
    module.walk([&](gpu::LaunchOp launch) {
      auto hint = launch->getAttrOfType<IntegerAttr>(hintName);
      hints.push_back(hint ? hint.getInt() : 0);
    });
    OpPassManager pipeline(ModuleOp::getOperationName());
    pipeline.addPass(outlining());
    if (failed(runPipeline(pipeline, module)))
      return signalPassFailure();
    if (llvm::all_of(hints, [](int64_t h) { return h == 0; }))
      return;
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
    if (launches.size() != hints.size()) {
      module.emitError() << "outlining made " << launches.size()
                         << " kernel launches of " << hints.size()
                         << " gpu.launch ops: cannot place their hints";
      return signalPassFailure();
    }
    SymbolTableCollection symbols;
    auto i32 = IntegerType::get(&getContext(), 32);
    for (auto [launch, hint] : llvm::zip_equal(launches, hints)) {
      if (hint == 0)
        continue;
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel) {
        launch.emitOpError("launches a kernel outlining did not make");
        return signalPassFailure();
      }
      kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      IntegerAttr::get(i32, hint));
    }
  }
};
} // namespace
