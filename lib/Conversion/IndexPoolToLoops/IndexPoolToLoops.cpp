//===- IndexPoolToLoops.cpp - indexpool ops -> loops on buffers -----------===//
//
// Each pattern turns one op into: its operands as read-only buffers, fresh
// result buffers, the loops of Kernels.cpp, and the results as tensors again
// (`to_tensor restrict`), so one-shot bufferization can take over the rest of
// the function. The paged ops, which update their pages, are left to it: it
// emits their loops on the buffers it chose, writing the pages in place
// (BufferizePaged.cpp).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/IndexPoolToLoops.h"
#include "indexpool/Conversion/Passes.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Target/Chips.h"

#include "Common/Kernels.h"
#include "Common/PagedBuffers.h"
#include "LowerOp.h"
#include "PagedOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLTOLOOPS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;
using namespace mlir::indexpool;
using namespace mlir::indexpool::loops;

namespace {

/// The result sizes of pool weights: [G, P] or [G, P, D].
static SmallVector<Value> weightSizes(Emitter &e, Value scores, Value g,
                                      int64_t poolSize, Value dimD) {
  SmallVector<Value> sizes{g, e.index(poolSize)};
  if (cast<MemRefType>(scores.getType()).getRank() == 2)
    sizes.push_back(dimD);
  return sizes;
}

struct LowerPool : LowerOp<PoolOp> {
  using LowerOp::LowerOp;
  void lower(PoolOp op, Emitter &e, BufferScope &buffers) const override {
    Value keys = buffers.in(op.getKeys());
    Value scores = buffers.in(op.getScores());
    Value bias = buffers.in(op.getBias());
    int64_t p = op.getPoolSize();
    Value g = groups(e, keys, p), dimD = e.dim(keys, 1);
    Value pooled = buffers.out(op.getPooled().getType(), {g, dimD});
    Value weights = buffers.outIfUsed(op.getWeights(),
                                      weightSizes(e, scores, g, p, dimD));
    PoolBuffers pool{keys, scores, bias, weights, p,
                     op.getTemperature().convertToDouble()};
    e.parallelFor(g, [&](Value row) {
      emitPoolGroup(e, pool, row, [&](Chunk c, Value v) {
        e.storeF32(v, pooled, {row, c.offset}, c.mask);
      });
    });
  }
};

struct LowerHadamard : LowerOp<HadamardOp> {
  using LowerOp::LowerOp;
  void lower(HadamardOp op, Emitter &e, BufferScope &buffers) const override {
    ImplicitLocOpBuilder &b = e.builder();
    Value input = buffers.in(op.getInput());
    auto type = cast<MemRefType>(input.getType());
    int64_t rank = type.getRank();
    SmallVector<Value> sizes;
    for (int64_t i = 0; i < rank; ++i)
      sizes.push_back(e.dim(input, i));
    Value output = buffers.out(op.getResult().getType(), sizes);
    // Rows are everything but the last dimension.
    SmallVector<ReassociationIndices> rows(1);
    for (int64_t i = 0; i + 1 < rank; ++i)
      rows[0].push_back(i);
    rows.push_back({rank - 1});
    if (rank == 1)
      rows = {{0}};
    auto flatten = [&](Value m) {
      if (rank == 2)
        return m;
      if (rank == 1) {
        auto t = cast<MemRefType>(m.getType());
        return Value(memref::ExpandShapeOp::create(
            b, MemRefType::get({1, t.getDimSize(0)}, t.getElementType()), m,
            ArrayRef<ReassociationIndices>{{0, 1}},
            ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                                   getAsOpFoldResult(sizes[0])}));
      }
      return Value(memref::CollapseShapeOp::create(b, m, rows));
    };
    Value in2 = flatten(input), out2 = flatten(output);
    Value dimD = e.dim(in2, 1);
    Type element = type.getElementType();
    Type outElement = cast<MemRefType>(output.getType()).getElementType();
    e.parallelFor(e.dim(in2, 0), [&](Value r) {
      e.stackScope([&]() {
        Value row = scratchRow(e, in2, dimD);
        e.chunks(dimD, [&](Chunk c) {
          e.storeF32(e.loadF32(in2, {r, c.offset}, c.mask), row, {c.offset},
                     c.mask);
        });
        emitHadamardRow(e, row, outElement);
        e.chunks(dimD, [&](Chunk c) {
          e.storeF32(e.loadF32(row, {c.offset}, c.mask), out2, {r, c.offset},
                     c.mask);
        });
      });
    });
    (void)element;
  }
};

struct LowerQuantize : LowerOp<QuantizeOp> {
  using LowerOp::LowerOp;
  void lower(QuantizeOp op, Emitter &e, BufferScope &buffers) const override {
    Value input = buffers.in(op.getInput());
    Value dimN = e.dim(input, 0), dimD = e.dim(input, 1);
    Value codes = buffers.out(op.getCodes().getType(), {dimN, dimD});
    Value scales = buffers.out(op.getScales().getType(), {dimN});
    QuantizeParams params{op.getPow2Scale(),
                          op.getMinAbsmax().convertToDouble()};
    e.parallelFor(dimN, [&](Value n) {
      emitQuantizeRow(
          e, [&](Chunk c) { return e.loadF32(input, {n, c.offset}, c.mask); },
          dimD, codes, scales, n, params);
    });
  }
};

struct LowerDequantize : LowerOp<DequantizeOp> {
  using LowerOp::LowerOp;
  void lower(DequantizeOp op, Emitter &e, BufferScope &buffers) const override {
    ImplicitLocOpBuilder &b = e.builder();
    Value codes = buffers.in(op.getCodes());
    Value scales = buffers.in(op.getScales());
    Value dimN = e.dim(codes, 0), dimD = e.dim(codes, 1);
    Value out = buffers.out(op.getResult().getType(), {dimN, dimD});
    e.parallelFor(dimN, [&](Value n) {
      Value s = e.splat(memref::LoadOp::create(b, scales, ValueRange{n}));
      e.chunks(dimD, [&](Chunk c) {
        Value x = arith::MulFOp::create(
            b, e.loadF32(codes, {n, c.offset}, c.mask), s);
        e.storeF32(x, out, {n, c.offset}, c.mask);
      });
    });
  }
};

/// result[i] = pooled[i / P] (op) other[i] over G*P rows: residual and
/// reconstruct.
static void emitPerTokenRows(Emitter &e, Value pooled, Value other,
                             Value result, int64_t poolSize, bool subtract) {
  ImplicitLocOpBuilder &b = e.builder();
  Value dimD = e.dim(pooled, 1);
  Value rows = e.mul(e.dim(pooled, 0), e.index(poolSize));
  e.parallelFor(rows, [&](Value i) {
    Value g = arith::DivUIOp::create(b, i, e.index(poolSize));
    e.chunks(dimD, [&](Chunk c) {
      Value p = e.loadF32(pooled, {g, c.offset}, c.mask);
      Value x = p;
      if (other) {
        Value o = e.loadF32(other, {i, c.offset}, c.mask);
        x = subtract ? Value(arith::SubFOp::create(b, o, p))
                     : Value(arith::AddFOp::create(b, p, o));
      }
      e.storeF32(x, result, {i, c.offset}, c.mask);
    });
  });
}

struct LowerResidual : LowerOp<ResidualOp> {
  using LowerOp::LowerOp;
  void lower(ResidualOp op, Emitter &e, BufferScope &buffers) const override {
    Value keys = buffers.in(op.getKeys());
    Value pooled = buffers.in(op.getPooled());
    int64_t p = op.getPoolSize();
    Value rows = e.mul(e.dim(pooled, 0), e.index(p));
    Value out = buffers.out(op.getResult().getType(), {rows, e.dim(pooled, 1)});
    emitPerTokenRows(e, pooled, keys, out, p, /*subtract=*/true);
  }
};

struct LowerReconstruct : LowerOp<ReconstructOp> {
  using LowerOp::LowerOp;
  void lower(ReconstructOp op, Emitter &e,
             BufferScope &buffers) const override {
    Value pooled = buffers.in(op.getPooled());
    Value residual = buffers.in(op.getResidual());
    int64_t p = op.getPoolSize();
    Value rows = e.mul(e.dim(pooled, 0), e.index(p));
    Value out = buffers.out(op.getResult().getType(), {rows, e.dim(pooled, 1)});
    emitPerTokenRows(e, pooled, residual, out, p, /*subtract=*/false);
  }
};

struct LowerCompress : LowerOp<CompressOp> {
  using LowerOp::LowerOp;
  void lower(CompressOp op, Emitter &e, BufferScope &buffers) const override {
    Value keys = buffers.in(op.getKeys());
    Value scores = buffers.in(op.getScores());
    Value bias = buffers.in(op.getBias());
    int64_t p = op.getPoolSize();
    Value g = groups(e, keys, p), dimD = e.dim(keys, 1);
    Value codes = buffers.out(op.getCodes().getType(), {g, dimD});
    Value scales = buffers.out(op.getScales().getType(), {g});
    Value weights = buffers.outIfUsed(op.getWeights(),
                                      weightSizes(e, scores, g, p, dimD));
    PoolBuffers pool{keys, scores, bias, weights, p,
                     op.getTemperature().convertToDouble()};
    QuantizeParams params{op.getPow2Scale(),
                          op.getMinAbsmax().convertToDouble()};
    bool rotate = op.getRotate();
    // One group at a time through pool -> [hadamard] -> quantize, the
    // pooled row kept in an L1 scratch.
    e.parallelFor(g, [&](Value row) {
      e.stackScope([&]() {
        emitCompressGroup(e, pool, row, rotate, params,
                          scratchRow(e, keys, dimD), codes, scales, row);
      });
    });
  }
};

struct LowerScore : LowerOp<ScoreOp> {
  using LowerOp::LowerOp;
  void lower(ScoreOp op, Emitter &e, BufferScope &buffers) const override {
    Value query = buffers.in(op.getQuery());
    Value weights = buffers.in(op.getWeights());
    Value keys = buffers.in(op.getKeys());
    Value scales = buffers.in(op.getScales());
    Value logits = buffers.out(op.getLogits().getType(),
                               {e.dim(query, 0), e.dim(keys, 0)});
    emitScore(e, query, weights, keys, scales, logits);
  }
};

struct LowerTopK : LowerOp<TopKOp> {
  using LowerOp::LowerOp;
  void lower(TopKOp op, Emitter &e, BufferScope &buffers) const override {
    Value logits = buffers.in(op.getLogits());
    Value valid = buffers.in(op.getValid());
    Value dimM = e.dim(logits, 0), k = e.index(op.getK());
    Value values = buffers.out(op.getValues().getType(), {dimM, k});
    Value indices = buffers.out(op.getIndices().getType(), {dimM, k});
    emitTopK(e, logits, valid, values, indices);
  }
};

struct LowerExpand : LowerOp<ExpandOp> {
  using LowerOp::LowerOp;
  void lower(ExpandOp op, Emitter &e, BufferScope &buffers) const override {
    Value indices = buffers.in(op.getIndices());
    int64_t p = op.getPoolSize();
    Value tokens = buffers.out(
        op.getTokens().getType(),
        {e.dim(indices, 0), e.mul(e.dim(indices, 1), e.index(p))});
    emitExpand(e, indices, tokens, p);
  }
};

struct LowerSelect : LowerOp<SelectOp> {
  using LowerOp::LowerOp;
  void lower(SelectOp op, Emitter &e, BufferScope &buffers) const override {
    ImplicitLocOpBuilder &b = e.builder();
    Value query = buffers.in(op.getQuery());
    Value weights = buffers.in(op.getWeights());
    Value keys = buffers.in(op.getKeys());
    Value scales = buffers.in(op.getScales());
    Value valid = buffers.in(op.getValid());
    int64_t p = op.getPoolSize(), k = op.getK();
    Value dimM = e.dim(query, 0), dimN = e.dim(keys, 0);
    Value tokens =
        buffers.out(op.getTokens().getType(), {dimM, e.index(k * p)});
    // The unfused kernels on temporaries: select is score -> topk -> expand
    // exactly; the logits and the k pools per row are small next to keys
    // (the buffer-deallocation pipeline frees them).
    auto temp = [&](ArrayRef<int64_t> shape, Type element,
                    ValueRange dynamic) {
      return memref::AllocOp::create(b, MemRefType::get(shape, element),
                                     dynamic, b.getI64IntegerAttr(64));
    };
    int64_t m = ShapedType::kDynamic;
    Value logits = temp({m, m}, b.getF32Type(), {dimM, dimN});
    Value values = temp({m, k}, b.getF32Type(), {dimM});
    Value indices = temp({m, k}, b.getI32Type(), {dimM});
    emitScore(e, query, weights, keys, scales, logits);
    emitTopK(e, logits, valid, values, indices);
    emitExpand(e, indices, tokens, p);
  }
};

struct LowerRefine : LowerOp<RefineOp> {
  using LowerOp::LowerOp;
  void lower(RefineOp op, Emitter &e, BufferScope &buffers) const override {
    ImplicitLocOpBuilder &b = e.builder();
    Value query = buffers.in(op.getQuery());
    Value weights = buffers.in(op.getWeights());
    Value candidates = buffers.in(op.getCandidates());
    Value keys = buffers.in(op.getKeys());
    Value scales = buffers.in(op.getScales());
    int64_t k = op.getK();
    Value dimM = e.dim(query, 0), dimC = e.dim(candidates, 1);
    Value tokens = buffers.out(op.getTokens().getType(), {dimM, e.index(k)});
    // Already the fused form: the gathered logits [M, C] and the k best
    // columns are small temporaries next to the keys, as select's are.
    auto temp = [&](ArrayRef<int64_t> shape, Type element, ValueRange dynamic) {
      return memref::AllocOp::create(b, MemRefType::get(shape, element),
                                     dynamic, b.getI64IntegerAttr(64));
    };
    int64_t m = ShapedType::kDynamic;
    Value logits = temp({m, m}, b.getF32Type(), {dimM, dimC});
    Value values = temp({m, k}, b.getF32Type(), {dimM});
    Value indices = temp({m, k}, b.getI32Type(), {dimM});
    emitRefineScore(e, query, weights, candidates, keys, scales, logits);
    emitTopK(e, logits, /*valid=*/nullptr, values, indices);
    emitTake(e, candidates, keys, indices, tokens);
  }
};

/// The operand whose last dimension, D, sizes a scratch that `op`'s row
/// loops allocate per row (scratchRow and PageScratch, the score loops'
/// block of decoded key rows, append_paged's group), and its name; null for
/// the ops whose loops allocate none, and for the paged ops that GPU
/// kernels will lower (marked by --indexpool-to-gpu-kernels).
static std::pair<Value, StringRef> scratchSizedBy(Operation *op) {
  if (op->hasAttr(kPagedChipAttrName))
    return {};
  return TypeSwitch<Operation *, std::pair<Value, StringRef>>(op)
      .Case([](HadamardOp o) {
        return std::pair<Value, StringRef>(o.getInput(), "input");
      })
      .Case<CompressOp, ScoreOp, SelectOp, RefineOp, CompressPagedOp,
            AppendPagedOp>([](auto o) {
        return std::pair<Value, StringRef>(o.getKeys(), "keys");
      })
      .Case<SelectPagedOp, RefinePagedOp>([](auto o) {
        return std::pair<Value, StringRef>(o.getQuery(), "query");
      })
      .Default(std::pair<Value, StringRef>());
}

/// With static-scratch (the GPU, where every row is a thread), an error at
/// each op whose scratch D is dynamic: that scratch would be local memory
/// of unbounded size (and a dynamic alloca needs PTX 7.3).
static LogicalResult checkStaticScratch(ModuleOp module) {
  bool refused = false;
  module.walk([&](Operation *op) {
    auto [operand, name] = scratchSizedBy(op);
    if (!operand || !ShapedType::isDynamic(
                        cast<ShapedType>(operand.getType()).getShape().back()))
      return;
    auto func = op->getParentOfType<FunctionOpInterface>();
    op->emitOpError() << "a GPU kernel needs a static D (the last dimension "
                         "of "
                      << name
                      << "): a dynamic D would need a per-thread scratch row "
                         "in local memory; compile for the CPU, or "
                         "specialize the function first (indexpool-compile "
                         "--function="
                      << (func ? func.getName() : StringRef("NAME"))
                      << " --input-shape=I:AxB...)";
    refused = true;
  });
  return failure(refused);
}

struct IndexPoolToLoops
    : mlir::indexpool::impl::IndexPoolToLoopsBase<IndexPoolToLoops> {
  using Base::Base;

  /// Before any IR is touched, and at no operation: an error at the module
  /// would print the whole module after it.
  LogicalResult initialize(MLIRContext *context) override {
    if (std::string rule = ::indexpool::target::vectorWidthRule(vectorWidth);
        !rule.empty())
      return emitError(UnknownLoc::get(context))
             << "indexpool-to-loops: " << rule;
    if (!cpu.empty()) {
      cpuTarget = ::indexpool::target::lookupCpuTarget(cpu);
      if (!cpuTarget)
        return emitError(UnknownLoc::get(context))
               << "indexpool-to-loops: "
               << ::indexpool::target::unknownCpuTargetMessage(cpu);
    }
    return success();
  }

  /// The paged ops' bufferization models, for the one-shot bufferization
  /// that follows.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerPagedBufferization(registry);
  }

  void runOnOperation() override {
    // Per-op widths are checked before anything is rewritten: a pattern
    // that failed on one would leave the op behind without failing the pass.
    WalkResult checked = getOperation()->walk([&](Operation *op) {
      if (isa_and_present<IndexPoolDialect>(op->getDialect()) &&
          failed(vectorWidthOf(op, vectorWidth)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();
    // Before anything is rewritten too: one error at each refused op.
    if (staticScratch && failed(checkStaticScratch(getOperation())))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateIndexPoolToLoopsPatterns(patterns, vectorWidth, stackScopes,
                                     cpuTarget, int8Query);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // This pass's loop options, for the paged ops' bufferization; a width
    // of their own (--indexpool-configure-cpu) stays.
    Builder b(&getContext());
    getOperation()->walk([&](Operation *op) {
      if (!isa<CompressPagedOp, SelectPagedOp, AppendPagedOp, RefinePagedOp>(
              op))
        return;
      if (!op->hasAttr(loops::kVectorWidthAttrName))
        op->setAttr(loops::kVectorWidthAttrName,
                    b.getI64IntegerAttr(vectorWidth));
      op->setAttr(kStackScopesAttrName, b.getBoolAttr(stackScopes));
      if (cpuTarget)
        op->setAttr(kCpuTargetAttrName, b.getStringAttr(cpu));
      if (int8Query)
        op->setAttr(kInt8QueryAttrName, b.getUnitAttr());
    });
  }

private:
  const ::indexpool::target::CpuTarget *cpuTarget = nullptr;
};

} // namespace

void mlir::indexpool::populateIndexPoolToLoopsPatterns(
    RewritePatternSet &patterns, int64_t vectorWidth, bool stackScopes,
    const ::indexpool::target::CpuTarget *cpu, bool int8Query) {
  patterns.add<LowerPool, LowerHadamard, LowerQuantize, LowerDequantize,
               LowerResidual, LowerReconstruct, LowerCompress, LowerScore,
               LowerTopK, LowerExpand, LowerSelect, LowerRefine>(
      patterns.getContext(), vectorWidth, stackScopes, cpu, int8Query);
}
