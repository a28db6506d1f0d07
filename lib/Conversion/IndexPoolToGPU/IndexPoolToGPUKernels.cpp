//===- IndexPoolToGPUKernels.cpp - fused ops -> gpu.launch kernels --------===//
//
// compress, score, topk and expand become gpu.launch kernels on buffers
// (the emitters of Kernels/, GPUKernels.h), select is split into the three
// it fuses first, refine into a gather-score, the topk and a take kernel; the
// paged ops become short sequences of kernels (Kernels/PagedKernels.cpp). Ops
// whose shapes a kernel does not cover stay for --indexpool-to-loops, but the
// paged ones are refused.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/IndexPoolToGPU.h"
#include "indexpool/Conversion/Passes.h"
#include "indexpool/Dialect/IndexPoolAttrs.h"
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Transforms/CostModel.h"

#include "Kernels/GPUKernels.h"
#include "Kernels/KernelBuilder.h"

#include "Common/BufferScope.h"
#include "Common/PagedBuffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLTOGPUKERNELS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;
using namespace mlir::indexpool;
using namespace mlir::indexpool::gpukernels;
using loops::BufferScope;

namespace {

/// What every kernel pattern knows: the chip's FP8 conversion and SM
/// limits, and the block size of ops without a launch configuration.
struct KernelOptions {
  bool hardwareFp8;
  int64_t threadsPerBlock;
  const ::indexpool::target::ChipInfo *chip;
  /// score on the tensor cores where canScoreMma covers it.
  bool tensorCores = false;

  /// What the tensor-core score needs of the chip; wgmma on sm_90a, the
  /// one chip that has it.
  MmaChip mmaChip() const {
    MmaChip mma;
    mma.computeCapability = chip->computeCapability;
    mma.hardwareFp8 = hardwareFp8;
    mma.warpgroupMma = chip->archSpecific && chip->computeCapability == 90;
    return mma;
  }

  /// The op's #indexpool.launch, every field; without one, the block size
  /// and the kernels' own choices.
  KernelLaunch launchFor(Operation *op) const {
    KernelLaunch launch;
    launch.threadsPerBlock = threadsPerBlock;
    launch.maxThreadsPerSM = chip->maxThreadsPerSM;
    launch.maxBlocksPerSM = chip->maxBlocksPerSM;
    launch.sharedBytesPerSM = int64_t(chip->sharedMemPerSMKiB) * 1024;
    launch.registersPerSM = chip->registersPerSM;
    if (auto attr = op->getAttrOfType<LaunchAttr>(kLaunchAttrName)) {
      launch.threadsPerBlock = attr.getThreadsPerBlock();
      launch.itemsPerBlock = attr.getItemsPerBlock();
      launch.elementsPerThread = attr.getElementsPerThread();
      launch.vectorBytes = attr.getVectorBytes();
      launch.gridStride = attr.getGrid() == GridPolicy::GridStride;
    }
    return launch;
  }
};

/// The frame of every kernel pattern: operands in as buffers, results out
/// as fresh buffers around `lower`, unless `unsupported` says why not.
template <typename Op>
struct KernelPattern : OpRewritePattern<Op> {
  KernelPattern(MLIRContext *ctx, KernelOptions options)
      : OpRewritePattern<Op>(ctx), options(options) {}

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const final {
    KernelLaunch launch = options.launchFor(op);
    if (const char *why = unsupported(op, launch))
      return rewriter.notifyMatchFailure(op, why);
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    BufferScope buffers(b);
    lower(op, b, buffers, launch);
    rewriter.replaceOp(op, buffers.finish());
    return success();
  }

  /// Why no kernel covers `op`, or null.
  virtual const char *unsupported(Op op, const KernelLaunch &launch) const {
    return nullptr;
  }
  virtual void lower(Op op, ImplicitLocOpBuilder &b, BufferScope &buffers,
                     const KernelLaunch &launch) const = 0;

  KernelOptions options;
};

/// The size of dimension `d` of `buffer`, for result allocations.
static Value dimOf(ImplicitLocOpBuilder &b, Value buffer, int64_t d) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(d))
    return arith::ConstantIndexOp::create(b, type.getDimSize(d));
  return memref::DimOp::create(b, buffer, d);
}

static MemRefType bufferType(Value tensor) {
  auto t = cast<RankedTensorType>(tensor.getType());
  return MemRefType::get(t.getShape(), t.getElementType());
}

/// Why the warp-row kernels do not cover rows of `tensor`, or null.
static const char *rowsUnsupported(Value tensor, const KernelLaunch &launch) {
  return canRowKernel(bufferType(tensor), launch)
             ? nullptr
             : "D is dynamic or not made of power-of-two 16-byte chunks";
}

/// The result sizes of pool weights: [G, P] or [G, P, D].
static SmallVector<Value> weightSizes(ImplicitLocOpBuilder &b, Value scores,
                                      Value groups, int64_t poolSize,
                                      Value dimD) {
  SmallVector<Value> sizes{groups,
                           arith::ConstantIndexOp::create(b, poolSize), dimD};
  if (cast<MemRefType>(scores.getType()).getRank() == 1)
    sizes.pop_back();
  return sizes;
}

/// Reads a pooling's operands and allocates its weights; G and D on the way.
template <typename Op>
static loops::PoolBuffers poolBuffers(ImplicitLocOpBuilder &b, Op op,
                                      BufferScope &buffers, Value &groups,
                                      Value &dimD) {
  loops::PoolBuffers p;
  p.keys = buffers.in(op.getKeys());
  p.scores = buffers.in(op.getScores());
  p.bias = buffers.in(op.getBias());
  p.poolSize = op.getPoolSize();
  p.temperature = op.getTemperature().convertToDouble();
  groups = arith::DivUIOp::create(
      b, dimOf(b, p.keys, 0), arith::ConstantIndexOp::create(b, p.poolSize));
  dimD = dimOf(b, p.keys, 1);
  return p;
}

struct CompressKernel : KernelPattern<CompressOp> {
  using KernelPattern::KernelPattern;
  const char *unsupported(CompressOp op,
                          const KernelLaunch &launch) const override {
    return rowsUnsupported(op.getKeys(), launch);
  }
  void lower(CompressOp op, ImplicitLocOpBuilder &b, BufferScope &buffers,
             const KernelLaunch &launch) const override {
    CompressBuffers c;
    Value groups, dimD;
    c.pool = poolBuffers(b, op, buffers, groups, dimD);
    c.codes = buffers.out(op.getCodes().getType(), {groups, dimD});
    c.scales = buffers.out(op.getScales().getType(), {groups});
    c.pool.weights = buffers.outIfUsed(
        op.getWeights(),
        weightSizes(b, c.pool.scores, groups, c.pool.poolSize, dimD));
    c.rotate = op.getRotate();
    c.pow2Scale = op.getPow2Scale();
    c.minAbsmax = op.getMinAbsmax().convertToDouble();
    emitCompressKernel(b, c, launch, options.hardwareFp8);
  }
};

struct PoolKernel : KernelPattern<PoolOp> {
  using KernelPattern::KernelPattern;
  const char *unsupported(PoolOp op,
                          const KernelLaunch &launch) const override {
    return rowsUnsupported(op.getKeys(), launch);
  }
  void lower(PoolOp op, ImplicitLocOpBuilder &b, BufferScope &buffers,
             const KernelLaunch &launch) const override {
    Value groups, dimD;
    loops::PoolBuffers p = poolBuffers(b, op, buffers, groups, dimD);
    Value pooled = buffers.out(op.getPooled().getType(), {groups, dimD});
    p.weights = buffers.outIfUsed(
        op.getWeights(), weightSizes(b, p.scores, groups, p.poolSize, dimD));
    emitPoolKernel(b, p, pooled, launch);
  }
};

struct HadamardKernel : KernelPattern<HadamardOp> {
  using KernelPattern::KernelPattern;
  const char *unsupported(HadamardOp op,
                          const KernelLaunch &launch) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    // Rows are every dimension but the last, any of them dynamic (counted
    // at run time), one row for rank 1; the static ones counted without
    // overflow.
    std::optional<int64_t> rows = 1;
    for (int64_t size : type.getShape().drop_back())
      if (rows && !ShapedType::isDynamic(size))
        rows = llvm::checkedMul(*rows, size);
    if (!rows)
      return "more rows than an int64_t counts";
    int64_t d = type.getShape().back();
    if (ShapedType::isDynamic(d))
      return "D is dynamic";
    if (!type.hasStaticShape())
      rows = ShapedType::kDynamic;
    MemRefType flat = MemRefType::get({*rows, d}, type.getElementType());
    if (!canRowKernel(flat, launch))
      return "D is not made of power-of-two 16-byte chunks";
    return nullptr;
  }
  void lower(HadamardOp op, ImplicitLocOpBuilder &b, BufferScope &buffers,
             const KernelLaunch &launch) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank();
    Value input = buffers.in(op.getInput());
    SmallVector<Value> sizes;
    for (int64_t i = 0; i < rank; ++i)
      sizes.push_back(dimOf(b, input, i));
    Value output = buffers.out(op.getResult().getType(), sizes);
    // The kernel takes [rows, D]: rank 1 is one row, a higher rank's rows
    // are everything but the last dimension.
    SmallVector<ReassociationIndices> collapse(1);
    for (int64_t i = 0; i + 1 < rank; ++i)
      collapse[0].push_back(i);
    collapse.push_back({rank - 1});
    auto flatten = [&](Value m) {
      if (rank == 2)
        return m;
      if (rank > 2)
        return Value(memref::CollapseShapeOp::create(b, m, collapse));
      auto t = cast<MemRefType>(m.getType());
      return Value(memref::ExpandShapeOp::create(
          b, MemRefType::get({1, t.getDimSize(0)}, t.getElementType()), m,
          ArrayRef<ReassociationIndices>{{0, 1}},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                                 b.getIndexAttr(t.getDimSize(0))}));
    };
    emitHadamardKernel(b, flatten(input), flatten(output), launch);
  }
};

struct QuantizeKernel : KernelPattern<QuantizeOp> {
  using KernelPattern::KernelPattern;
  const char *unsupported(QuantizeOp op,
                          const KernelLaunch &launch) const override {
    return rowsUnsupported(op.getInput(), launch);
  }
  void lower(QuantizeOp op, ImplicitLocOpBuilder &b, BufferScope &buffers,
             const KernelLaunch &launch) const override {
    Value input = buffers.in(op.getInput());
    Value rows = dimOf(b, input, 0);
    Value codes =
        buffers.out(op.getCodes().getType(), {rows, dimOf(b, input, 1)});
    Value scales = buffers.out(op.getScales().getType(), {rows});
    emitQuantizeKernel(b, input, codes, scales, op.getPow2Scale(),
                       op.getMinAbsmax().convertToDouble(),
                       launch, options.hardwareFp8);
  }
};

struct ScoreKernel : KernelPattern<ScoreOp> {
  using KernelPattern::KernelPattern;
  /// Whether the tensor-core kernel takes `op` (it needs no shared memory).
  bool onTensorCores(ScoreOp op) const {
    return options.tensorCores &&
           canScoreMma(bufferType(op.getQuery()), bufferType(op.getKeys()),
                       options.mmaChip());
  }
  const char *unsupported(ScoreOp op, const KernelLaunch &) const override {
    if (onTensorCores(op))
      return nullptr;
    if (!canScore(bufferType(op.getQuery()), bufferType(op.getKeys())))
      return "H or D dynamic, H > 128, or the query beyond 48 KiB";
    // No shared buffer of 0 elements: the loops write the zero logits.
    if (cast<RankedTensorType>(op.getQuery().getType()).getDimSize(2) == 0)
      return "D = 0";
    return nullptr;
  }
  void lower(ScoreOp op, ImplicitLocOpBuilder &b, BufferScope &buffers,
             const KernelLaunch &launch) const override {
    Value query = buffers.in(op.getQuery());
    Value weights = buffers.in(op.getWeights());
    Value keys = buffers.in(op.getKeys());
    Value scales = buffers.in(op.getScales());
    Value logits = buffers.out(op.getLogits().getType(),
                               {dimOf(b, query, 0), dimOf(b, keys, 0)});
    // Other shapes and types keep the CUDA-core kernel, silently.
    if (onTensorCores(op))
      return emitMmaScoreKernel(b, query, weights, keys, scales, logits,
                                launch, options.mmaChip());
    emitScoreKernel(b, query, weights, keys, scales, logits, launch);
  }
};

struct TopKKernel : KernelPattern<TopKOp> {
  using KernelPattern::KernelPattern;
  const char *unsupported(TopKOp op, const KernelLaunch &) const override {
    // The temporaries, in bytes, must be countable (dynamic sizes: the
    // runtime checks them).
    auto logits = cast<RankedTensorType>(op.getLogits().getType());
    auto size = [](int64_t d) { return ShapedType::isDynamic(d) ? 1 : d; };
    if (!topKTemporaryBytes(size(logits.getDimSize(0)),
                            size(logits.getDimSize(1)),
                            static_cast<int64_t>(op.getK())))
      return "the topk kernels' temporaries overflow int64_t";
    return nullptr;
  }
  void lower(TopKOp op, ImplicitLocOpBuilder &b, BufferScope &buffers,
             const KernelLaunch &launch) const override {
    Value logits = buffers.in(op.getLogits());
    Value valid = buffers.in(op.getValid());
    Value dimM = dimOf(b, logits, 0);
    Value k = arith::ConstantIndexOp::create(b, op.getK());
    Value values = buffers.out(op.getValues().getType(), {dimM, k});
    Value indices = buffers.out(op.getIndices().getType(), {dimM, k});
    emitTopKKernel(b, logits, valid, values, indices, launch);
  }
};

struct ExpandKernel : KernelPattern<ExpandOp> {
  using KernelPattern::KernelPattern;
  void lower(ExpandOp op, ImplicitLocOpBuilder &b, BufferScope &buffers,
             const KernelLaunch &launch) const override {
    Value indices = buffers.in(op.getIndices());
    int64_t p = op.getPoolSize();
    Value tokens = buffers.out(
        op.getTokens().getType(),
        {dimOf(b, indices, 0),
         arith::MulIOp::create(b, dimOf(b, indices, 1),
                               arith::ConstantIndexOp::create(b, p))});
    emitExpandKernel(b, indices, tokens, p, launch);
  }
};

/// refine -> gather-score, topk and take kernels on temporaries (the
/// kernels' own split: the gathered logits are no op of the dialect).
struct RefineKernel : KernelPattern<RefineOp> {
  using KernelPattern::KernelPattern;
  /// Whether the gather-score runs on the tensor cores (as score does).
  bool onTensorCores(RefineOp op) const {
    return options.tensorCores &&
           canScoreMma(bufferType(op.getQuery()), bufferType(op.getKeys()),
                       options.mmaChip());
  }
  const char *unsupported(RefineOp op, const KernelLaunch &) const override {
    if (!onTensorCores(op) &&
        !canScore(bufferType(op.getQuery()), bufferType(op.getKeys())))
      return "H or D dynamic, H > 128, or the query beyond 48 KiB";
    if (cast<RankedTensorType>(op.getQuery().getType()).getDimSize(2) == 0)
      return "D = 0";
    // The topk kernels' temporaries over [M, C] logits, in bytes, must be
    // countable (dynamic sizes: the runtime checks them).
    auto candidates = cast<RankedTensorType>(op.getCandidates().getType());
    auto size = [](int64_t d) { return ShapedType::isDynamic(d) ? 1 : d; };
    if (!topKTemporaryBytes(size(candidates.getDimSize(0)),
                            size(candidates.getDimSize(1)),
                            static_cast<int64_t>(op.getK())))
      return "the topk kernels' temporaries overflow int64_t";
    return nullptr;
  }
  void lower(RefineOp op, ImplicitLocOpBuilder &b, BufferScope &buffers,
             const KernelLaunch &launch) const override {
    Value query = buffers.in(op.getQuery());
    Value weights = buffers.in(op.getWeights());
    Value candidates = buffers.in(op.getCandidates());
    Value keys = buffers.in(op.getKeys());
    Value scales = buffers.in(op.getScales());
    auto k = static_cast<int64_t>(op.getK());
    Value dimM = dimOf(b, query, 0);
    Value tokens = buffers.out(op.getTokens().getType(),
                               {dimM, arith::ConstantIndexOp::create(b, k)});
    auto temp = [&](ArrayRef<int64_t> shape, Type element, ValueRange dynamic) {
      return Value(memref::AllocOp::create(b, MemRefType::get(shape, element),
                                           dynamic, b.getI64IntegerAttr(64)));
    };
    int64_t dyn = ShapedType::kDynamic;
    Type f32 = b.getF32Type(), i32 = b.getI32Type();
    Value logits = temp({dyn, dyn}, f32, {dimM, dimOf(b, candidates, 1)});
    Value values = temp({dyn, k}, f32, {dimM});
    Value indices = temp({dyn, k}, i32, {dimM});
    if (onTensorCores(op))
      emitMmaRefineScoreKernel(b, query, weights, candidates, keys, scales,
                               logits, launch, options.mmaChip());
    else
      emitRefineScoreKernel(b, query, weights, candidates, keys, scales,
                            logits, launch);
    emitTopKKernel(b, logits, /*valid=*/nullptr, values, indices,
                   partTopKLaunch(launch));
    emitTakeKernel(b, candidates, keys, indices, tokens, launch);
  }
};

/// Why no kernel covers the paged op `op`, or null: the compress rows need
/// a static D of the warp-row layouts, the scores static H and D.
static const char *pagedUnsupported(Operation *op,
                                    const KernelLaunch &launch) {
  auto keyRows = [&](Value keys) -> const char * {
    auto type = cast<RankedTensorType>(keys.getType());
    auto rows = MemRefType::get({ShapedType::kDynamic, type.getShape().back()},
                                type.getElementType());
    return canRowKernel(rows, launch)
               ? nullptr
               : "D is dynamic or not made of power-of-two 16-byte chunks";
  };
  if (auto compress = dyn_cast<CompressPagedOp>(op))
    return keyRows(compress.getKeys());
  if (auto append = dyn_cast<AppendPagedOp>(op))
    return keyRows(append.getKeys());
  Value query;
  if (auto select = dyn_cast<SelectPagedOp>(op))
    query = select.getQuery();
  if (auto refine = dyn_cast<RefinePagedOp>(op))
    query = refine.getQuery();
  if (query)
    return canSelectPaged(bufferType(query))
               ? nullptr
               : "H or D dynamic, H > 128, D not made of 16-byte chunks, or "
                 "the query beyond 48 KiB";
  return nullptr;
}

struct SelectPagedKernel : KernelPattern<SelectPagedOp> {
  using KernelPattern::KernelPattern;
  /// Whether the score part runs on the tensor cores (as score does).
  bool onTensorCores(SelectPagedOp op) const {
    return options.tensorCores &&
           canSelectPagedMma(bufferType(op.getQuery()), op.getCodesType(),
                             options.mmaChip());
  }
  const char *unsupported(SelectPagedOp op,
                          const KernelLaunch &launch) const override {
    return onTensorCores(op) ? nullptr : pagedUnsupported(op, launch);
  }
  void lower(SelectPagedOp op, ImplicitLocOpBuilder &b, BufferScope &buffers,
             const KernelLaunch &launch) const override {
    PagedSelectBuffers s;
    s.query = buffers.in(op.getQuery());
    s.weights = buffers.in(op.getWeights());
    s.pages = buffers.in(op.getPages());
    s.table = buffers.in(op.getBlockTable());
    s.lengths = buffers.in(op.getLengths());
    s.k = static_cast<int64_t>(op.getK());
    s.poolSize = op.getPoolSize();
    s.layout = loops::PageEntries::of(op);
    s.tensorCores = onTensorCores(op);
    s.chip = options.mmaChip();
    s.tokens = buffers.out(
        op.getTokens().getType(),
        {dimOf(b, s.query, 0), dimOf(b, s.query, 1),
         arith::ConstantIndexOp::create(b, s.k * s.poolSize + s.poolSize - 1)});
    emitSelectPagedKernels(b, s, launch);
  }
};

struct RefinePagedKernel : KernelPattern<RefinePagedOp> {
  using KernelPattern::KernelPattern;
  /// Whether the score part runs on the tensor cores (as select_paged's).
  bool onTensorCores(RefinePagedOp op) const {
    return options.tensorCores &&
           canSelectPagedMma(bufferType(op.getQuery()), op.getCodesType(),
                             options.mmaChip());
  }
  const char *unsupported(RefinePagedOp op,
                          const KernelLaunch &launch) const override {
    return onTensorCores(op) ? nullptr : pagedUnsupported(op, launch);
  }
  void lower(RefinePagedOp op, ImplicitLocOpBuilder &b, BufferScope &buffers,
             const KernelLaunch &launch) const override {
    PagedRefineBuffers s;
    s.query = buffers.in(op.getQuery());
    s.weights = buffers.in(op.getWeights());
    s.candidates = buffers.in(op.getCandidates());
    s.pages = buffers.in(op.getPages());
    s.table = buffers.in(op.getBlockTable());
    s.lengths = buffers.in(op.getLengths());
    s.k = static_cast<int64_t>(op.getK());
    s.layout = loops::PageEntries::of(op);
    s.tensorCores = onTensorCores(op);
    s.chip = options.mmaChip();
    s.tokens = buffers.out(op.getTokens().getType(),
                           {dimOf(b, s.query, 0), dimOf(b, s.query, 1),
                            arith::ConstantIndexOp::create(b, s.k)});
    emitRefinePagedKernels(b, s, launch);
  }
};

/// compress_paged and append_paged update their pages (and tails) in place:
/// one-shot bufferization lowers them (IndexPoolToLoops/BufferizePaged.cpp)
/// with these kernels, on the buffers it chose (loops::PagedBuffers), for
/// the ops this pass marked with its chip (loops::kPagedChipAttrName).
static void emitMarkedPagedKernels(Operation *op, ImplicitLocOpBuilder &b,
                                   loops::PagedBuffers &buffers) {
  auto chipName = op->getAttrOfType<StringAttr>(loops::kPagedChipAttrName);
  const ::indexpool::target::ChipInfo *chip =
      ::indexpool::target::lookupChip(chipName.getValue());
  int64_t threads = ::indexpool::target::kDefaultThreadsPerBlock;
  if (auto attr = op->getAttrOfType<IntegerAttr>(loops::kPagedThreadsAttrName))
    threads = attr.getInt();
  KernelOptions options{chip->hasFp8Convert, threads, chip};
  KernelLaunch launch = options.launchFor(op);
  if (auto compress = dyn_cast<CompressPagedOp>(op)) {
    PagedCompressBuffers c;
    c.pool.keys = buffers.in(compress.getKeys());
    c.pool.scores = buffers.in(compress.getScores());
    c.pool.bias = buffers.in(compress.getBias());
    c.pool.poolSize = compress.getPoolSize();
    c.pool.temperature = compress.getTemperature().convertToDouble();
    c.slots = buffers.in(compress.getSlots());
    // In place: the pages already hold the input's bytes.
    c.pagesIn = c.pages = buffers.inPlace(compress.getResult());
    c.layout = loops::PageEntries::of(compress);
    c.rotate = compress.getRotate();
    c.pow2Scale = compress.getPow2Scale();
    c.minAbsmax = compress.getMinAbsmax().convertToDouble();
    emitCompressPagedKernels(b, c, launch, options.hardwareFp8);
    return;
  }
  auto append = cast<AppendPagedOp>(op);
  PagedAppendBuffers a;
  a.keys = buffers.in(append.getKeys());
  a.scores = buffers.in(append.getScores());
  a.bias = buffers.in(append.getBias());
  a.lengths = buffers.in(append.getLengths());
  a.table = buffers.in(append.getBlockTable());
  a.pagesIn = a.pages = buffers.inPlace(append.getResult());
  // The new tails are gathered while the old ones are read (other rows'
  // groups), so into scratch first, then copied over the old ones.
  a.tailKeys = buffers.inPlace(append.getNewTailKeys());
  a.tailScores = buffers.inPlace(append.getNewTailScores());
  auto scratch = [&](Value like) -> Value {
    SmallVector<Value> dynamic;
    auto type = cast<MemRefType>(like.getType());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamic.push_back(memref::DimOp::create(b, like, d));
    return memref::AllocOp::create(
        b, MemRefType::get(type.getShape(), type.getElementType()), dynamic,
        b.getI64IntegerAttr(64));
  };
  a.newTailKeys = scratch(a.tailKeys);
  a.newTailScores = scratch(a.tailScores);
  a.poolSize = append.getPoolSize();
  a.temperature = append.getTemperature().convertToDouble();
  a.layout = loops::PageEntries::of(append);
  a.rotate = append.getRotate();
  a.pow2Scale = append.getPow2Scale();
  a.minAbsmax = append.getMinAbsmax().convertToDouble();
  emitAppendPagedKernels(b, a, launch, options.hardwareFp8);
  emitCopyKernel(b, a.newTailKeys, a.tailKeys, launch);
  emitCopyKernel(b, a.newTailScores, a.tailScores, launch);
}

/// The launch a configured select's topk part takes: the cost model's topk
/// launch for [m, n] logits on the select's chip (the select's own fields
/// are the score's: its elements_per_thread would make the topk's segments
/// 16 times longer).
static LaunchAttr topKLaunchOf(LaunchAttr select, int64_t m, int64_t n) {
  const ::indexpool::target::ChipInfo *chip =
      ::indexpool::target::lookupChip(select.getChip());
  if (!chip)
    return select;
  namespace cost = ::indexpool::cost;
  cost::OpDesc desc;
  desc.kind = cost::OpKind::RowSelect;
  desc.items = ShapedType::isDynamic(m) ? cost::kDynamic : m;
  desc.rowElems = ShapedType::isDynamic(n) ? cost::kDynamic : n;
  desc.elemBytes = 4;
  cost::Launch l = cost::chooseLaunch(*chip, desc);
  return LaunchAttr::get(select.getContext(), select.getChip(),
                         l.threadsPerBlock, l.itemsPerBlock,
                         l.elementsPerThread, l.vectorBytes,
                         l.grid == cost::Grid::Tiled ? GridPolicy::Tiled
                                                     : GridPolicy::GridStride);
}

/// select -> score, topk, expand (the kernels above): score and expand with
/// the select's launch configuration, topk with topKLaunchOf.
struct SplitSelect : OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto queryType = cast<RankedTensorType>(op.getQuery().getType());
    auto keysType = cast<RankedTensorType>(op.getKeys().getType());
    int64_t m = queryType.getDimSize(0), n = keysType.getDimSize(0);
    auto k = static_cast<int64_t>(op.getK());
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    auto score = ScoreOp::create(
        rewriter, loc, RankedTensorType::get({m, n}, f32), op.getQuery(),
        op.getWeights(), op.getKeys(), op.getScales());
    auto topk = TopKOp::create(
        rewriter, loc, RankedTensorType::get({m, k}, f32),
        RankedTensorType::get({m, k}, i32), score.getLogits(), op.getValid(),
        k);
    auto expand = ExpandOp::create(rewriter, loc, op.getTokens().getType(),
                                   topk.getIndices(), op.getPoolSize());
    if (auto launch = op->getAttrOfType<LaunchAttr>(kLaunchAttrName)) {
      score->setAttr(kLaunchAttrName, launch);
      topk->setAttr(kLaunchAttrName, topKLaunchOf(launch, m, n));
      expand->setAttr(kLaunchAttrName, launch);
    }
    rewriter.replaceOp(op, expand.getTokens());
    return success();
  }
};

struct IndexPoolToGPUKernels
    : mlir::indexpool::impl::IndexPoolToGPUKernelsBase<
          IndexPoolToGPUKernels> {
  using Base::Base;

  /// The options, checked once before any IR is touched; the errors name
  /// no operation, so that the whole module is not printed after them.
  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    info = ::indexpool::target::lookupChip(chip);
    if (!info)
      return emitError(loc)
             << "indexpool-to-gpu-kernels: "
             << (chip.empty() ? "needs chip=NAME; known chips: " +
                                    ::indexpool::target::knownChipNames()
                              : ::indexpool::target::unknownChipMessage(chip));
    std::string rule =
        ::indexpool::target::threadsPerBlockRule(threadsPerBlock);
    if (!rule.empty())
      return emitError(loc) << "indexpool-to-gpu-kernels: " << rule;
    return success();
  }

  void runOnOperation() override {
    // A launch configuration chosen for another chip (block sizes, vector
    // widths, the grid for its SM count) would compile, and run slowly or
    // beyond this chip's limits: refuse it.
    WalkResult foreign = getOperation().walk([&](Operation *op) {
      auto launch = op->getAttrOfType<LaunchAttr>(kLaunchAttrName);
      if (!launch || launch.getChip() == chip)
        return WalkResult::advance();
      op->emitError() << "this op's '" << kLaunchAttrName << "' was chosen for "
                      << launch.getChip() << ", but the kernels are compiled "
                      << "for " << chip
                      << ": configure it for " << chip
                      << " (--indexpool-configure=chip=" << chip
                      << ") or remove the attribute";
      return WalkResult::interrupt();
    });
    if (foreign.wasInterrupted())
      return signalPassFailure();
    // The paged ops have kernels for static D (and H): other shapes are
    // refused in one line, not run as CPU loops (whose page copy is a host
    // memref.copy).
    KernelOptions options{info->hasFp8Convert, threadsPerBlock, info};
    WalkResult uncovered = getOperation().walk([&](Operation *op) {
      if (!isa<CompressPagedOp, SelectPagedOp, AppendPagedOp, RefinePagedOp>(
              op))
        return WalkResult::advance();
      const char *why = pagedUnsupported(op, options.launchFor(op));
      if (!why)
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' has no GPU kernel for these shapes: " << why;
      return WalkResult::interrupt();
    });
    if (uncovered.wasInterrupted())
      return signalPassFailure();
    if (requireStaticShapes) {
      WalkResult dynamic = getOperation().walk([&](Operation *op) {
        if (!isa<IndexPoolDialect>(op->getDialect()))
          return WalkResult::advance();
        for (Type t : llvm::concat<const Type>(op->getOperandTypes(),
                                               op->getResultTypes()))
          if (auto shaped = dyn_cast<ShapedType>(t);
              shaped && !shaped.hasStaticShape()) {
            auto func = op->getParentOfType<func::FuncOp>();
            op->emitError()
                << "GPU kernels take static shapes, got " << t
                << "; specialize the function first (indexpool-compile "
                   "--function="
                << (func ? func.getSymName() : StringRef("NAME"))
                << " --input-shape=I:AxB...)";
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      });
      if (dynamic.wasInterrupted())
        return signalPassFailure();
    }
    // compress_paged and append_paged: their kernels come with their
    // bufferization, which writes the pages in place.
    loops::setPagedKernelEmitter(&emitMarkedPagedKernels);
    getOperation().walk([&](Operation *op) {
      if (!isa<CompressPagedOp, AppendPagedOp>(op))
        return;
      op->setAttr(loops::kPagedChipAttrName,
                  StringAttr::get(&getContext(), info->name));
      op->setAttr(loops::kPagedThreadsAttrName,
                  IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                   threadsPerBlock));
    });
    RewritePatternSet patterns(&getContext());
    populateIndexPoolToGPUKernelsPatterns(patterns, *info, threadsPerBlock,
                                          tensorCores);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }

  const ::indexpool::target::ChipInfo *info = nullptr;
};

} // namespace

void mlir::indexpool::populateIndexPoolToGPUKernelsPatterns(
    RewritePatternSet &patterns, const ::indexpool::target::ChipInfo &chip,
    int64_t threadsPerBlock, bool tensorCores) {
  MLIRContext *ctx = patterns.getContext();
  KernelOptions options{chip.hasFp8Convert, threadsPerBlock, &chip,
                        tensorCores};
  patterns.add<SplitSelect>(ctx);
  patterns.add<CompressKernel, PoolKernel, HadamardKernel, QuantizeKernel,
               ScoreKernel, TopKKernel, ExpandKernel, RefineKernel,
               SelectPagedKernel, RefinePagedKernel>(ctx, options);
}
