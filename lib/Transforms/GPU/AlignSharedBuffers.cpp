//===- AlignSharedBuffers.cpp - 16-byte aligned workgroup buffers ---------===//

#include "indexpool/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLALIGNSHAREDBUFFERS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;

namespace {
struct IndexPoolAlignSharedBuffers
    : mlir::indexpool::impl::IndexPoolAlignSharedBuffersBase<
          IndexPoolAlignSharedBuffers> {
  using Base::Base;

  void runOnOperation() override {
    Builder b(&getContext());
    // The widest shared access the kernels make: ld.shared.v4.b32.
    IntegerAttr align = b.getI64IntegerAttr(16);
    getOperation().walk([&](gpu::GPUFuncOp func) {
      for (unsigned i = 0, e = func.getNumWorkgroupAttributions(); i < e; ++i)
        func.setWorkgroupAttributionAttr(
            i, LLVM::LLVMDialect::getAlignAttrName(), align);
    });
  }
};
} // namespace
