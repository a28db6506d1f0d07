//===- LowerOp.h - the shape of every indexpool-to-loops pattern -*- C++ -*-===//
//
// Internal to IndexPoolToLoops: the pattern base that lowers one op through a
// BufferScope and an Emitter, and small helpers its files share.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOLOOPS_LOWEROP_H
#define INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOLOOPS_LOWEROP_H

#include "indexpool/Dialect/IndexPoolAttrs.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Target/CpuTargets.h"
#include "indexpool/Transforms/TuningDb.h"

#include "Common/BufferScope.h"
#include "Common/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::indexpool::loops {

/// The row loops of an op with a launch configuration: its block size (at
/// most Emitter::kMaxRowThreads), a tile of items_per_block rows but at
/// least one per thread (a row loop runs one thread per row, where the
/// cost model's tile assumes several threads per row), and for grid_stride
/// the blocks of this size an SM of its chip holds (a wave is that many per
/// SM of the device, whose SM count the host code reads at run time).
inline void configure(Emitter &e, LaunchAttr launch) {
  e.setThreadsPerBlock(launch.getThreadsPerBlock());
  int64_t threads =
      std::min<int64_t>(launch.getThreadsPerBlock(), Emitter::kMaxRowThreads);
  std::optional<int64_t> blocksPerSM;
  const ::indexpool::target::ChipInfo *chip =
      ::indexpool::target::lookupChip(launch.getChip());
  if (launch.getGrid() == GridPolicy::GridStride && chip)
    blocksPerSM = std::max<int64_t>(
        1, std::min<int64_t>(chip->maxThreadsPerSM / threads,
                             chip->maxBlocksPerSM));
  e.setTile(std::max<int64_t>(launch.getItemsPerBlock(), threads),
            blocksPerSM);
}

/// The f32 lanes of `op`'s loops over D: its indexpool.vector_width (from
/// --indexpool-configure-cpu's tuning database) when it has one, else
/// `fallback` (the pass option). A bad attribute is reported at the op.
inline FailureOr<int64_t> vectorWidthOf(Operation *op, int64_t fallback) {
  Attribute attr = op->getAttr(::mlir::indexpool::kVectorWidthAttrName);
  if (!attr)
    return fallback;
  auto width = dyn_cast<IntegerAttr>(attr);
  if (!width || !width.getType().isSignlessInteger(64) ||
      !isValidVectorWidth(width.getInt()))
    return op->emitOpError()
           << "'" << ::mlir::indexpool::kVectorWidthAttrName
           << "' must be an i64 power of two from 1 to " << kMaxVectorWidth
           << ", got " << attr;
  return width.getInt();
}

/// One op: operands in as buffers, `lower` emits the loops and the result
/// buffers, which replace the op's results as tensors.
template <typename Op>
struct LowerOp : OpRewritePattern<Op> {
  LowerOp(MLIRContext *ctx, int64_t vectorWidth, bool stackScopes,
          const ::indexpool::target::CpuTarget *cpu, bool int8Query)
      : OpRewritePattern<Op>(ctx), vectorWidth(vectorWidth),
        stackScopes(stackScopes), cpu(cpu), int8Query(int8Query) {}

  LogicalResult matchAndRewrite(Op op, PatternRewriter &rewriter) const final {
    // The pass checked every op's width before any pattern ran.
    FailureOr<int64_t> width = vectorWidthOf(op, vectorWidth);
    if (failed(width))
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Emitter e(b, *width, stackScopes);
    e.setCpuTarget(cpu);
    e.setInt8Query(int8Query);
    if (auto launch = op->template getAttrOfType<LaunchAttr>(kLaunchAttrName))
      configure(e, launch);
    BufferScope buffers(b);
    lower(op, e, buffers);
    rewriter.replaceOp(op, buffers.finish());
    return success();
  }

  virtual void lower(Op op, Emitter &e, BufferScope &buffers) const = 0;

  int64_t vectorWidth;
  bool stackScopes;
  const ::indexpool::target::CpuTarget *cpu;
  bool int8Query;
};

/// G = floor(T / P) rows of a pooling, as an index value.
inline Value groups(Emitter &e, Value keys, int64_t poolSize) {
  return arith::DivUIOp::create(e.builder(), e.dim(keys, 0),
                                e.index(poolSize));
}

/// A per-row f32 scratch of D elements (D = dim 1 of `like`) on the stack.
inline Value scratchRow(Emitter &e, Value like, Value dimD) {
  int64_t d = cast<MemRefType>(like.getType()).getDimSize(1);
  auto type = MemRefType::get({d}, e.builder().getF32Type());
  return memref::AllocaOp::create(
      e.builder(), type,
      type.isDynamicDim(0) ? ValueRange{dimD} : ValueRange{},
      e.builder().getI64IntegerAttr(32));
}

} // namespace mlir::indexpool::loops

#endif // INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOLOOPS_LOWEROP_H
