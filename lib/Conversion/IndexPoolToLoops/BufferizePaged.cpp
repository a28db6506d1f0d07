//===- BufferizePaged.cpp - the paged ops write their pages in place ------===//
//
// compress_paged and append_paged take the page pool (and append_paged its
// tails) as operands and give the updated ones as results. Lowered before
// bufferization like the other ops (fresh result buffers), every step would
// copy the whole pool first. Instead they implement BufferizableOpInterface:
// the pool operand is read and written and its result is equivalent to it,
// so one-shot bufferization writes the pool in place when nothing reads the
// old one after the op (a decode loop's iter_arg, a function argument that
// is writable) and copies it only where something does; and the op's loops
// are emitted by `bufferize`, on the buffers it chose (PagedOps.cpp, or the
// GPU kernels for an op --indexpool-to-gpu-kernels marked). This
// is the least machinery that does it: no memref form of the ops, no
// tensor-level rewrite of byte writes into slices.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Target/CpuTargets.h"

#include "PagedOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::indexpool;
using namespace mlir::indexpool::loops;

namespace {

/// The operands a paged op updates in place, with the results that are
/// their new values: (operand number, result number).
SmallVector<std::pair<unsigned, unsigned>> updates(Operation *op) {
  if (auto compress = dyn_cast<CompressPagedOp>(op))
    return {{compress.getPagesMutable().getOperandNumber(), 0}};
  if (auto append = dyn_cast<AppendPagedOp>(op))
    return {{append.getPagesMutable().getOperandNumber(), 0},
            {append.getTailKeysMutable().getOperandNumber(), 1},
            {append.getTailScoresMutable().getOperandNumber(), 2}};
  return {};
}

/// The buffers of one op: getBuffer's, with the identity layout the loops
/// index (a strided buffer is copied into a fresh one, and an updated one
/// copied back after the op, as bufferization.to_buffer would).
class Buffers : public PagedBuffers {
public:
  Buffers(ImplicitLocOpBuilder &b, Operation *op,
          const BufferizationOptions &options)
      : b(b), op(op), options(options) {}

  LogicalResult init(RewriterBase &rewriter, BufferizationState &state) {
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<TensorType>(operand.get().getType()))
        continue;
      FailureOr<Value> buffer =
          getBuffer(rewriter, operand.get(), options, state);
      if (failed(buffer))
        return failure();
      operandBuffers[operand.getOperandNumber()] = *buffer;
    }
    results.assign(op->getNumResults(), Value());
    for (auto [operand, result] : updates(op)) {
      Value buffer = operandBuffers.lookup(operand);
      FailureOr<Value> contiguous = identityLayout(buffer);
      if (failed(contiguous))
        return failure();
      results[result] = buffer;
      written[result] = *contiguous;
    }
    return success();
  }

  Value in(Value tensor) override {
    if (!tensor)
      return {};
    for (OpOperand &operand : op->getOpOperands()) {
      if (operand.get() != tensor)
        continue;
      Value &read = readBuffers[operand.getOperandNumber()];
      if (!read) {
        FailureOr<Value> buffer =
            identityLayout(operandBuffers.lookup(operand.getOperandNumber()));
        read = succeeded(buffer) ? *buffer : Value();
      }
      return read;
    }
    return {};
  }

  Value inPlace(Value result) override {
    return written.lookup(cast<OpResult>(result).getResultNumber());
  }

  Value out(Value result, ArrayRef<Value> sizes) override {
    auto tensor = cast<RankedTensorType>(result.getType());
    SmallVector<Value> dynamic;
    for (auto [i, size] : llvm::enumerate(sizes))
      if (tensor.isDynamicDim(i))
        dynamic.push_back(size);
    Value buffer = memref::AllocOp::create(
        b, MemRefType::get(tensor.getShape(), tensor.getElementType()), dynamic,
        b.getI64IntegerAttr(64));
    results[cast<OpResult>(result).getResultNumber()] = buffer;
    return buffer;
  }

  /// The result buffers, after the updated ones that were copied for their
  /// layout are copied back.
  SmallVector<Value> finish() {
    for (auto [result, buffer] : written)
      if (buffer != results[result] && !buffer.getDefiningOp<memref::CastOp>())
        memref::CopyOp::create(b, buffer, results[result]);
    return results;
  }

private:
  FailureOr<Value> identityLayout(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    if (type.getLayout().isIdentity())
      return buffer;
    return castOrReallocMemRefValue(
        b, buffer,
        MemRefType::get(type.getShape(), type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace()),
        options);
  }

  ImplicitLocOpBuilder &b;
  Operation *op;
  const BufferizationOptions &options;
  llvm::DenseMap<unsigned, Value> operandBuffers;
  llvm::DenseMap<unsigned, Value> readBuffers, written;
  SmallVector<Value> results;
};

template <typename Op>
struct PagedOpModel
    : public BufferizableOpInterface::ExternalModel<PagedOpModel<Op>, Op> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    // The pages are read too: the bytes no group overwrites stay.
    return true;
  }

  bool bufferizesToMemoryWrite(Operation *op, OpOperand &operand,
                               const AnalysisState &) const {
    return llvm::any_of(updates(op), [&](auto update) {
      return update.first == operand.getOperandNumber();
    });
  }

  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    for (auto [number, result] : updates(op))
      if (number == operand.getOperandNumber())
        return {{op->getResult(result), BufferRelation::Equivalent}};
    return {};
  }

  bool bufferizesToAllocation(Operation *op, Value value) const {
    // select_paged's and refine_paged's tokens.
    return updates(op).empty();
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    ImplicitLocOpBuilder b(op->getLoc(), rewriter);
    Buffers buffers(b, op, options);
    if (failed(buffers.init(rewriter, state)))
      return failure();
    if (op->hasAttr(kPagedChipAttrName)) {
      // The GPU kernels --indexpool-to-gpu-kernels chose, on these buffers.
      PagedKernelEmitter emit = getPagedKernelEmitter();
      if (!emit)
        return op->emitError("marked for GPU kernels, but the GPU kernels' "
                             "library did not register their emitter");
      emit(op, b, buffers);
    } else {
      int64_t vectorWidth = 8;
      if (auto width = op->getAttrOfType<IntegerAttr>(kVectorWidthAttrName))
        vectorWidth = width.getInt();
      bool stackScopes = true;
      if (auto scopes = op->getAttrOfType<BoolAttr>(kStackScopesAttrName))
        stackScopes = scopes.getValue();
      Emitter e(b, vectorWidth, stackScopes);
      if (auto cpu = op->getAttrOfType<StringAttr>(kCpuTargetAttrName))
        e.setCpuTarget(::indexpool::target::lookupCpuTarget(cpu.getValue()));
      e.setInt8Query(op->hasAttr(kInt8QueryAttrName));
      emitPagedOp(op, e, buffers);
    }
    replaceOpWithBufferizedValues(rewriter, op, buffers.finish());
    return success();
  }
};

} // namespace

void mlir::indexpool::loops::registerPagedBufferization(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, IndexPoolDialect *) {
    CompressPagedOp::attachInterface<PagedOpModel<CompressPagedOp>>(*ctx);
    SelectPagedOp::attachInterface<PagedOpModel<SelectPagedOp>>(*ctx);
    AppendPagedOp::attachInterface<PagedOpModel<AppendPagedOp>>(*ctx);
    RefinePagedOp::attachInterface<PagedOpModel<RefinePagedOp>>(*ctx);
  });
}
