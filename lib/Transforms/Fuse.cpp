//===- Fuse.cpp - --indexpool-fuse ----------------------------------------===//
//
// Rewrites pool -> [hadamard] -> quantize into compress and score -> topk ->
// expand into select (docs/IndexPoolOps.md). A chain is fused only when the fused op
// computes exactly what it did: no intermediate value is seen by anyone else,
// and the roundings between the steps are those the fused op performs.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Dialect/Shapes.h"
#include "indexpool/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLFUSE
#include "indexpool/Dialect/Passes.h.inc"
} // namespace mlir::indexpool

using namespace mlir;
using namespace mlir::indexpool;

/// Sizes `a` and `b` may be equal at run time.
static bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

namespace {

/// pool -> [hadamard] -> quantize  =>  compress.
struct FuseCompress : OpRewritePattern<QuantizeOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(QuantizeOp quant,
                                PatternRewriter &rewriter) const override {
    Value pooled = quant.getInput();
    auto hadamard = pooled.getDefiningOp<HadamardOp>();
    if (hadamard) {
      if (!pooled.hasOneUse())
        return rewriter.notifyMatchFailure(
            quant, "the rotated keys have another user");
      pooled = hadamard.getInput();
    }
    // Checking the result, not just the op: the pool's weights are also an
    // [N, D] f32 tensor that quantize or hadamard would accept.
    auto pool = pooled.getDefiningOp<PoolOp>();
    if (!pool || pool.getPooled() != pooled)
      return rewriter.notifyMatchFailure(
          quant, "input is not the pooled result of a pool (after hadamard)");
    if (!pooled.hasOneUse())
      return rewriter.notifyMatchFailure(quant,
                                         "the pooled keys have another user");

    // compress rounds the pooled and the rotated keys to the keys' element
    // type; a chain that keeps them in f32 rounds less and would change.
    Type keyType = pool.getKeys().getType().getElementType();
    if (pool.getPooled().getType().getElementType() != keyType)
      return rewriter.notifyMatchFailure(
          quant, "pooled keys are not rounded to the keys' element type");
    if (hadamard && hadamard.getResult().getType().getElementType() != keyType)
      return rewriter.notifyMatchFailure(
          quant, "rotated keys are not rounded to the keys' element type");

    // Across regions the fused op would move quantize out of a conditional
    // or loop body, or pool into one.
    if (pool->getBlock() != quant->getBlock() ||
        (hadamard && hadamard->getBlock() != quant->getBlock()))
      return rewriter.notifyMatchFailure(quant, "chain spans several blocks");

    // Each op verified, but a dynamic intermediate can hide a contradiction
    // between the ends of the chain (keys 1024x128 -> pooled ?x128 -> codes
    // 300x128) that the fused op's verifier would see. Such a chain can only
    // fail at run time; leave that error to the runtime.
    RankedTensorType keys = pool.getKeys().getType();
    RankedTensorType codes = quant.getCodes().getType();
    int64_t dim = keys.getDimSize(1);
    if (!compatible(codes.getDimSize(0),
                    numGroups(keys.getDimSize(0), pool.getPoolSize())) ||
        !compatible(codes.getDimSize(1), dim) ||
        (hadamard && !ShapedType::isDynamic(dim) && !isValidHadamardDim(dim)))
      return rewriter.notifyMatchFailure(
          quant, "a dynamic intermediate hides a size mismatch with the keys");

    // At the pool, not at the quantize: the weights may be used in between,
    // and every operand of compress is an operand of the pool.
    rewriter.setInsertionPoint(pool);
    SmallVector<Location> locs = {pool.getLoc(), quant.getLoc()};
    if (hadamard)
      locs.insert(locs.begin() + 1, hadamard.getLoc());
    auto compress = CompressOp::create(
        rewriter, rewriter.getFusedLoc(locs), codes,
        quant.getScales().getType(), pool.getWeights().getType(),
        pool.getKeys(), pool.getScores(), pool.getBias(), pool.getPoolSize(),
        pool.getTemperature(),
        /*rotate=*/static_cast<bool>(hadamard), quant.getPow2Scale(),
        quant.getMinAbsmax());

    rewriter.replaceOp(quant, {compress.getCodes(), compress.getScales()});
    if (hadamard)
      rewriter.eraseOp(hadamard);
    rewriter.replaceAllUsesWith(pool.getWeights(), compress.getWeights());
    rewriter.eraseOp(pool);
    return success();
  }
};

/// score -> topk -> expand  =>  select.
struct FuseSelect : OpRewritePattern<ExpandOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(ExpandOp expand,
                                PatternRewriter &rewriter) const override {
    Value indices = expand.getIndices();
    auto topk = indices.getDefiningOp<TopKOp>();
    if (!topk)
      return rewriter.notifyMatchFailure(expand,
                                         "indices do not come from topk");
    if (!indices.hasOneUse())
      return rewriter.notifyMatchFailure(expand,
                                         "the topk indices have another user");
    // select returns token indices only; the logits of the winners are lost.
    if (!topk.getValues().use_empty())
      return rewriter.notifyMatchFailure(expand, "the topk values are used");
    auto score = topk.getLogits().getDefiningOp<ScoreOp>();
    if (!score)
      return rewriter.notifyMatchFailure(expand,
                                         "logits do not come from score");
    if (!score.getLogits().hasOneUse())
      return rewriter.notifyMatchFailure(expand,
                                         "the logits have another user");

    // Across regions the fused op would move score into a loop body or a
    // conditional.
    if (score->getBlock() != expand->getBlock() ||
        topk->getBlock() != expand->getBlock())
      return rewriter.notifyMatchFailure(expand, "chain spans several blocks");

    // As for compress: dynamic logits or indices can hide a contradiction
    // between the query, the keys, valid and the tokens that select's
    // verifier would see.
    RankedTensorType tokens = expand.getTokens().getType();
    int64_t m = score.getQuery().getType().getDimSize(0);
    int64_t n = score.getKeys().getType().getDimSize(0);
    int64_t k = topk.getK();
    TypedValue<RankedTensorType> valid = topk.getValid();
    if ((!ShapedType::isDynamic(n) && k > n) ||
        (valid && !compatible(valid.getType().getDimSize(0), m)) ||
        !compatible(tokens.getDimSize(0), m) ||
        !compatible(tokens.getDimSize(1), mulDims(k, expand.getPoolSize())))
      return rewriter.notifyMatchFailure(
          expand,
          "a dynamic intermediate hides a size mismatch with the query");

    // At the expand: valid, an operand of topk, may be defined after score.
    rewriter.setInsertionPoint(expand);
    auto select = SelectOp::create(
        rewriter,
        rewriter.getFusedLoc({score.getLoc(), topk.getLoc(), expand.getLoc()}),
        tokens, score.getQuery(), score.getWeights(), score.getKeys(),
        score.getScales(), valid, k, expand.getPoolSize());

    rewriter.replaceOp(expand, select);
    rewriter.eraseOp(topk);
    rewriter.eraseOp(score);
    return success();
  }
};

struct IndexPoolFuse : mlir::indexpool::impl::IndexPoolFuseBase<IndexPoolFuse> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseCompress, FuseSelect>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
