//===- LowerVectorMasks.cpp - vector masks inside GPU kernels -------------===//

#include "indexpool/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLLOWERVECTORMASKS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;

namespace {
struct IndexPoolLowerVectorMasks
    : mlir::indexpool::impl::IndexPoolLowerVectorMasksBase<
          IndexPoolLowerVectorMasks> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    // Masks of a size known at run time (a dynamic D's tail): a compare of
    // the lane index with the bound, in 64-bit lanes (a 32-bit bound would
    // wrap for sizes of 2^31 and more).
    vector::populateVectorMaskMaterializationPatterns(
        patterns, /*force32BitVectorIndices=*/false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
