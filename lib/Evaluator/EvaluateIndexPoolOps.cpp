//===- EvaluateIndexPoolOps.cpp - the evaluator on indexpool ops ----------===//
//
// Each indexpool op: its operands checked with the reference's check
// function (then the op's verifier on the concrete shapes), its results the
// reference's -- or, in a shapes-only run, just their shapes.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "indexpool/Dialect/Shapes.h"
#include "indexpool/Reference/Paged.h"
#include "indexpool/Reference/Reference.h"

using namespace mlir;
using namespace mlir::indexpool;
using namespace mlir::indexpool::evaluator;

static double toDouble(const APFloat &value) { return value.convertToDouble(); }

LogicalResult Interpreter::visitPool(PoolOp op) {
  int64_t p = int64_t(op.getPoolSize());
  double temperature = op.getTemperature().convertToFloat();
  const HostTensor &keys = full(op.getKeys());
  const HostTensor &scores = full(op.getScores());
  const HostTensor *bias = fullOrNull(op.getBias());
  if (failed(checked(op, ref::checkPool(keys, scores, bias, p, temperature))))
    return failure();
  if (shapesOnly) {
    int64_t groups = keys.shape[0] / p, dim = keys.shape[1];
    Shape weights =
        scores.rank() == 2 ? Shape{groups, p, dim} : Shape{groups, p};
    if (failed(bindShape(op, op.getPooled(), {groups, dim})))
      return failure();
    return bindShape(op, op.getWeights(), weights);
  }
  ref::PoolResult result = ref::pool(keys, scores, bias, p, temperature,
                                     elementTypeOf(op.getPooled()));
  if (failed(bind(op, op.getPooled(), std::move(result.pooled))))
    return failure();
  return bind(op, op.getWeights(), std::move(result.weights));
}

LogicalResult Interpreter::visitHadamard(HadamardOp op) {
  const HostTensor &x = full(op.getInput());
  if (failed(checked(op, ref::checkHadamard(x))))
    return failure();
  if (!isValidHadamardDim(x.shape.back()))
    return fail(op, "the last size D of x must be a power of two <= " +
                        std::to_string(kMaxHadamardDim) + ", got " +
                        std::to_string(x.shape.back()));
  if (shapesOnly)
    return bindShape(op, op.getResult(), x.shape);
  return bind(op, op.getResult(),
              ref::hadamard(x, elementTypeOf(op.getResult())));
}

LogicalResult Interpreter::visitQuantize(QuantizeOp op) {
  ElementType codes = elementTypeOf(op.getCodes());
  double minAbsmax = toDouble(op.getMinAbsmax());
  const HostTensor &x = full(op.getInput());
  if (failed(checked(op, ref::checkQuantize(x, codes, minAbsmax))))
    return failure();
  if (shapesOnly) {
    if (failed(bindShape(op, op.getCodes(), x.shape)))
      return failure();
    return bindShape(op, op.getScales(), {x.shape[0]});
  }
  ref::QuantizeResult result =
      ref::quantize(x, codes, op.getPow2Scale(), minAbsmax);
  if (failed(bind(op, op.getCodes(), std::move(result.q))))
    return failure();
  return bind(op, op.getScales(), std::move(result.scale));
}

LogicalResult Interpreter::visitDequantize(DequantizeOp op) {
  const HostTensor &q = full(op.getCodes());
  const HostTensor &scales = full(op.getScales());
  if (failed(checked(op, ref::checkDequantize(q, scales))))
    return failure();
  if (shapesOnly)
    return bindShape(op, op.getResult(), q.shape);
  return bind(op, op.getResult(),
              ref::dequantize(q, scales, elementTypeOf(op.getResult())));
}

LogicalResult Interpreter::visitResidual(ResidualOp op) {
  int64_t p = int64_t(op.getPoolSize());
  const HostTensor &keys = full(op.getKeys());
  const HostTensor &pooled = full(op.getPooled());
  if (failed(checked(op, ref::checkResidual(keys, pooled, p))))
    return failure();
  if (shapesOnly)
    return bindShape(op, op.getResult(),
                     {pooled.shape[0] * p, pooled.shape[1]});
  return bind(op, op.getResult(),
              ref::residual(keys, pooled, p, elementTypeOf(op.getResult())));
}

LogicalResult Interpreter::visitReconstruct(ReconstructOp op) {
  int64_t p = int64_t(op.getPoolSize());
  const HostTensor &pooled = full(op.getPooled());
  const HostTensor *residual = fullOrNull(op.getResidual());
  if (failed(checked(op, ref::checkReconstruct(pooled, residual, p))))
    return failure();
  if (shapesOnly)
    return bindShape(op, op.getResult(),
                     {pooled.shape[0] * p, pooled.shape[1]});
  return bind(
      op, op.getResult(),
      ref::reconstruct(pooled, residual, p, elementTypeOf(op.getResult())));
}

LogicalResult Interpreter::visitScore(ScoreOp op) {
  const HostTensor &q = full(op.getQuery());
  const HostTensor &w = full(op.getWeights());
  const HostTensor &keys = full(op.getKeys());
  const HostTensor *scales = fullOrNull(op.getScales());
  if (failed(checked(op, ref::checkScore(q, w, keys, scales))))
    return failure();
  if (shapesOnly)
    return bindShape(op, op.getLogits(), {q.shape[0], keys.shape[0]});
  return bind(op, op.getLogits(), ref::score(q, w, keys, scales));
}

LogicalResult Interpreter::visitTopK(TopKOp op) {
  int64_t k = int64_t(op.getK());
  const HostTensor &logits = full(op.getLogits());
  const HostTensor *valid = fullOrNull(op.getValid());
  if (failed(checked(op, ref::checkTopK(logits, valid, k))))
    return failure();
  if (shapesOnly) {
    if (failed(bindShape(op, op.getValues(), {logits.shape[0], k})))
      return failure();
    return bindShape(op, op.getIndices(), {logits.shape[0], k});
  }
  ref::TopKResult result = ref::topk(logits, valid, k);
  if (failed(bind(op, op.getValues(), std::move(result.values))))
    return failure();
  return bind(op, op.getIndices(), std::move(result.indices));
}

LogicalResult Interpreter::visitExpand(ExpandOp op) {
  int64_t p = int64_t(op.getPoolSize());
  const HostTensor &idx = full(op.getIndices());
  if (failed(checked(op, ref::checkExpand(idx, p))))
    return failure();
  if (shapesOnly)
    return bindShape(op, op.getTokens(), {idx.shape[0], idx.shape[1] * p});
  return bind(op, op.getTokens(), ref::expand(idx, p));
}

LogicalResult Interpreter::visitCompress(CompressOp op) {
  ref::CompressOptions options;
  options.poolSize = int64_t(op.getPoolSize());
  options.temperature = op.getTemperature().convertToFloat();
  options.rotate = op.getRotate();
  options.quantizedType = elementTypeOf(op.getCodes());
  options.pow2Scale = op.getPow2Scale();
  options.minAbsmax = toDouble(op.getMinAbsmax());
  const HostTensor &keys = full(op.getKeys());
  const HostTensor &scores = full(op.getScores());
  const HostTensor *bias = fullOrNull(op.getBias());
  if (failed(checked(op, ref::checkCompress(keys, scores, bias, options))))
    return failure();
  if (options.rotate && !isValidHadamardDim(keys.shape[1]))
    return fail(op, "with rotate, the size D of keys must be a power of two "
                    "<= " +
                        std::to_string(kMaxHadamardDim) + ", got " +
                        std::to_string(keys.shape[1]));
  if (shapesOnly) {
    int64_t p = options.poolSize;
    int64_t groups = keys.shape[0] / p, dim = keys.shape[1];
    Shape weights =
        scores.rank() == 2 ? Shape{groups, p, dim} : Shape{groups, p};
    if (failed(bindShape(op, op.getCodes(), {groups, dim})) ||
        failed(bindShape(op, op.getScales(), {groups})))
      return failure();
    return bindShape(op, op.getWeights(), weights);
  }
  ref::CompressResult result = ref::compress(keys, scores, bias, options);
  if (failed(bind(op, op.getCodes(), std::move(result.q))) ||
      failed(bind(op, op.getScales(), std::move(result.scale))))
    return failure();
  return bind(op, op.getWeights(), std::move(result.weights));
}

LogicalResult Interpreter::visitSelect(SelectOp op) {
  int64_t k = int64_t(op.getK()), p = int64_t(op.getPoolSize());
  const HostTensor &q = full(op.getQuery());
  const HostTensor &w = full(op.getWeights());
  const HostTensor &keys = full(op.getKeys());
  const HostTensor *scales = fullOrNull(op.getScales());
  const HostTensor *valid = fullOrNull(op.getValid());
  if (failed(checked(op, ref::checkSelect(q, w, keys, scales, valid, k, p))))
    return failure();
  if (shapesOnly)
    return bindShape(op, op.getTokens(), {q.shape[0], k * p});
  return bind(op, op.getTokens(), ref::select(q, w, keys, scales, valid, k, p));
}

LogicalResult Interpreter::visitRefine(RefineOp op) {
  int64_t k = int64_t(op.getK());
  const HostTensor &q = full(op.getQuery());
  const HostTensor &w = full(op.getWeights());
  const HostTensor &candidates = full(op.getCandidates());
  const HostTensor &keys = full(op.getKeys());
  const HostTensor *scales = fullOrNull(op.getScales());
  if (failed(checked(op, ref::checkRefine(q, w, candidates, keys, scales, k))))
    return failure();
  if (shapesOnly)
    return bindShape(op, op.getTokens(), {q.shape[0], k});
  return bind(op, op.getTokens(),
              ref::refine(q, w, candidates, keys, scales, k));
}

//===----------------------------------------------------------------------===//
// The paged serving layout (docs/serving-layout.md)
//===----------------------------------------------------------------------===//

/// The compress options of a paged op (its codes are the pages' codes).
template <typename PagedOp>
static ref::CompressOptions pagedCompressOptions(PagedOp op) {
  ref::CompressOptions options;
  options.poolSize = int64_t(op.getPoolSize());
  options.temperature = op.getTemperature().convertToFloat();
  options.rotate = op.getRotate();
  options.quantizedType =
      toElementType(op.getCodesType()).value_or(ElementType::F8E4M3FN);
  options.pow2Scale = op.getPow2Scale();
  options.minAbsmax = toDouble(op.getMinAbsmax());
  return options;
}

LogicalResult Interpreter::visitCompressPaged(CompressPagedOp op) {
  const HostTensor &keys = full(op.getKeys());
  const HostTensor &scores = full(op.getScores());
  const HostTensor *bias = fullOrNull(op.getBias());
  const HostTensor &pages = full(op.getPages());
  const HostTensor &slots = full(op.getSlots());
  ref::CompressOptions options = pagedCompressOptions(op);
  ref::PageLayout layout =
      pageLayoutOf(op, keys.rank() == 2 ? keys.shape[1] : 0);
  if (failed(checked(op, ref::checkCompressPaged(keys, scores, bias, pages,
                                                 slots, options, layout))))
    return failure();
  if (shapesOnly)
    return bindShape(op, op.getResult(), pages.shape);
  return bind(op, op.getResult(),
              ref::compressPaged(keys, scores, bias, pages, slots, options,
                                 layout));
}

LogicalResult Interpreter::visitSelectPaged(SelectPagedOp op) {
  int64_t k = int64_t(op.getK()), p = int64_t(op.getPoolSize());
  const HostTensor &q = full(op.getQuery());
  const HostTensor &w = full(op.getWeights());
  const HostTensor &pages = full(op.getPages());
  const HostTensor &table = full(op.getBlockTable());
  const HostTensor &lengths = full(op.getLengths());
  ref::PageLayout layout = pageLayoutOf(op, q.rank() == 4 ? q.shape[3] : 0);
  if (failed(checked(op, ref::checkSelectPaged(q, w, pages, table, lengths, k,
                                               p, layout))))
    return failure();
  if (shapesOnly)
    return bindShape(op, op.getTokens(),
                     {q.shape[0], q.shape[1], k * p + p - 1});
  return bind(op, op.getTokens(),
              ref::selectPaged(q, w, pages, table, lengths, k, p, layout));
}

LogicalResult Interpreter::visitRefinePaged(RefinePagedOp op) {
  int64_t k = int64_t(op.getK());
  const HostTensor &q = full(op.getQuery());
  const HostTensor &w = full(op.getWeights());
  const HostTensor &candidates = full(op.getCandidates());
  const HostTensor &pages = full(op.getPages());
  const HostTensor &table = full(op.getBlockTable());
  const HostTensor &lengths = full(op.getLengths());
  ref::PageLayout layout = pageLayoutOf(op, q.rank() == 4 ? q.shape[3] : 0);
  if (failed(checked(op, ref::checkRefinePaged(q, w, candidates, pages, table,
                                               lengths, k, layout))))
    return failure();
  if (shapesOnly)
    return bindShape(op, op.getTokens(), {q.shape[0], q.shape[1], k});
  return bind(op, op.getTokens(),
              ref::refinePaged(q, w, candidates, pages, table, lengths, k,
                               layout));
}

LogicalResult Interpreter::visitAppendPaged(AppendPagedOp op) {
  const HostTensor &keys = full(op.getKeys());
  const HostTensor &scores = full(op.getScores());
  const HostTensor *bias = fullOrNull(op.getBias());
  const HostTensor &tailKeys = full(op.getTailKeys());
  const HostTensor &tailScores = full(op.getTailScores());
  const HostTensor &lengths = full(op.getLengths());
  const HostTensor &pages = full(op.getPages());
  const HostTensor &table = full(op.getBlockTable());
  ref::CompressOptions options = pagedCompressOptions(op);
  ref::PageLayout layout =
      pageLayoutOf(op, keys.rank() == 3 ? keys.shape[2] : 0);
  if (failed(checked(op, ref::checkAppendPaged(keys, scores, tailKeys,
                                               tailScores, lengths, bias,
                                               pages, table, options,
                                               layout))))
    return failure();
  if (shapesOnly)
    return failure(failed(bindShape(op, op.getResult(), pages.shape)) ||
                   failed(bindShape(op, op.getNewTailKeys(), tailKeys.shape)) ||
                   failed(bindShape(op, op.getNewTailScores(),
                                    tailScores.shape)));
  ref::AppendResult r =
      ref::appendPaged(keys, scores, tailKeys, tailScores, lengths, bias,
                       pages, table, options, layout);
  return failure(failed(bind(op, op.getResult(), std::move(r.pages))) ||
                 failed(bind(op, op.getNewTailKeys(), std::move(r.tailKeys))) ||
                 failed(bind(op, op.getNewTailScores(),
                             std::move(r.tailScores))));
}
