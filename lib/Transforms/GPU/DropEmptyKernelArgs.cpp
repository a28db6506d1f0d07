//===- DropEmptyKernelArgs.cpp - no zero-element buffers as kernel params -===//
//
// A kernel parameter whose static memref type holds no element (a token
// tier's empty tail [B, 0, D], a block table [B, 0]) is never read or
// written, but upstream's bare-pointer lowering of gpu.func refuses such a
// type ("failed to legalize operation 'gpu.func'"), so valid IR that runs on
// the CPU failed to compile for a GPU. This pass gives the kernel a local
// zero-element buffer in its place and drops the parameter from the kernel
// and from every gpu.launch_func of it: nothing is passed, nothing changes.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/BitVector.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLDROPEMPTYKERNELARGS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;

/// A memref type of static shape with no element and an identity layout
/// (what a local alloca can stand for).
static bool isEmptyBuffer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() && memref.getNumElements() == 0 &&
         memref.getLayout().isIdentity();
}

namespace {
struct DropEmptyKernelArgs
    : mlir::indexpool::impl::IndexPoolDropEmptyKernelArgsBase<
          DropEmptyKernelArgs> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel() || kernel.isExternal())
        return;
      llvm::BitVector empty(kernel.getNumArguments());
      for (BlockArgument arg : kernel.getArguments())
        if (isEmptyBuffer(arg.getType()))
          empty.set(arg.getArgNumber());
      if (empty.none())
        return;
      OpBuilder b = OpBuilder::atBlockBegin(&kernel.front());
      for (unsigned i : empty.set_bits()) {
        BlockArgument arg = kernel.getArgument(i);
        Value local = memref::AllocaOp::create(
            b, arg.getLoc(), cast<MemRefType>(arg.getType()));
        arg.replaceAllUsesWith(local);
      }
      auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();
      SymbolRefAttr symbol = SymbolRefAttr::get(
          gpuModule.getNameAttr(),
          {FlatSymbolRefAttr::get(kernel.getNameAttr())});
      module.walk([&](gpu::LaunchFuncOp launch) {
        if (launch.getKernel() != symbol)
          return;
        for (int i = int(empty.size()) - 1; i >= 0; --i)
          if (empty.test(unsigned(i)))
            launch.getKernelOperandsMutable().erase(unsigned(i));
      });
      if (failed(kernel.eraseArguments(empty)))
        signalPassFailure();
    });
  }
};
} // namespace
