//===- LowerVectorMasks.cpp - vector masks inside GPU kernels -------------===//

#include "indexpool/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLLOWERVECTORMASKS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;

namespace {
struct IndexPoolLowerVectorMasks
    : indexpool::impl::IndexPoolLowerVectorMasksBase<
          IndexPoolLowerVectorMasks> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
