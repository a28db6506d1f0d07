//===- Interpreter.h - the reference evaluator's interpreter ----*- C++ -*-===//
//
// Internal to lib/Evaluator: the interpreter over one func.func that
// evaluateFunction, specializeShapes, evaluateReference and
// generateRandomInputs run, and the small helpers its files share. Every
// value maps to a reference HostTensor (or, for index scalars, an int64).
// Each op is checked with the reference's check function before it runs, so
// that dynamic sizes that break a relation of docs/IndexPoolOps.md end in one
// message, never in an assertion.
//
// Its visit functions live by kind: Interpreter.cpp (the dispatch, binding,
// the concrete-shape verifier), EvaluateIndexPoolOps.cpp,
// EvaluateTensorOps.cpp (arith, tensor, bufferization) and
// EvaluateControlFlow.cpp (scf, func.return).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_EVALUATOR_INTERPRETER_H
#define INDEXPOOL_LIB_EVALUATOR_INTERPRETER_H

#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Evaluator/Evaluator.h"
#include "indexpool/Reference/Paged.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <deque>
#include <string>
#include <vector>

// Only the files that visit these ops need their dialects' headers.
namespace mlir {
class OffsetSizeAndStrideOpInterface;
namespace arith {
class ConstantOp;
} // namespace arith
namespace bufferization {
class MaterializeInDestinationOp;
} // namespace bufferization
namespace scf {
class ExecuteRegionOp;
class ForOp;
} // namespace scf
namespace tensor {
class CastOp;
class DimOp;
class EmptyOp;
class ExtractSliceOp;
class InsertSliceOp;
} // namespace tensor
} // namespace mlir

namespace mlir::indexpool::evaluator {

using ref::ElementType;
using ref::HostTensor;
using Shape = std::vector<int64_t>;

/// `type` as MLIR prints it, for messages.
std::string typeString(Type type);

inline Shape shapeOf(RankedTensorType type) {
  return Shape(type.getShape().begin(), type.getShape().end());
}

/// A tensor of `shape` whose data is left empty (shapes-only evaluation).
inline HostTensor shapeOnly(ElementType type, Shape shape) {
  return HostTensor{type, std::move(shape), {}};
}

inline bool hasData(const HostTensor &t) {
  return t.data.size() == size_t(t.numElements());
}

/// The page layout of a paged op whose keys or queries have `dim` channels.
template <typename PagedOp>
ref::PageLayout pageLayoutOf(PagedOp op, int64_t dim) {
  ref::PageLayout layout;
  layout.entries = int64_t(op.getPageEntries());
  layout.dim = dim;
  layout.codes =
      toElementType(op.getCodesType()).value_or(ElementType::F8E4M3FN);
  layout.scalesFirst = op.getScalesFirst();
  return layout;
}

class Interpreter {
public:
  Interpreter(func::FuncOp func, bool shapesOnly)
      : func(func), shapesOnly(shapesOnly) {}

  /// Runs the function; on success `results` holds the returned tensors.
  LogicalResult run(ArrayRef<HostTensor> inputs);

  const HostTensor &valueOf(Value v) const { return *values.find(v)->second; }
  bool hasValue(Value v) const { return values.count(v); }

  std::vector<HostTensor> results;
  std::string error;

private:
  LogicalResult fail(Operation *op, const std::string &why) {
    error = describeOp(op) + ": " + why;
    return failure();
  }
  /// Reports a reference check message ("pool: keys must be ...") for `op`;
  /// when there is none, verifies `op` with its operands' concrete shapes.
  LogicalResult checked(Operation *op, const std::string &message) {
    if (message.empty())
      return verifyConcrete(op);
    size_t colon = message.find(": ");
    return fail(op, colon == std::string::npos ? message
                                               : message.substr(colon + 2));
  }
  LogicalResult verifyConcrete(Operation *op);

  /// The tensor of an operand; with data unless this is a shapes-only run
  /// (the check functions read shapes only: allocating zeros for a shape
  /// that is only being validated could take gigabytes).
  const HostTensor &operand(Value v) { return *values.find(v)->second; }
  const HostTensor &full(Value v) {
    const HostTensor &t = operand(v);
    if (hasData(t) || shapesOnly)
      return t;
    scratch.push_back(HostTensor::zeros(t.type, t.shape));
    return scratch.back();
  }
  const HostTensor *fullOrNull(Value v) { return v ? &full(v) : nullptr; }

  ElementType elementTypeOf(Value v) {
    return *toElementType(cast<RankedTensorType>(v.getType()).getElementType());
  }

  /// Binds `result` to `t` after checking it against the result's type.
  LogicalResult bind(Operation *op, Value result, HostTensor t);
  /// Binds a result known only by its shape (shapes-only runs).
  LogicalResult bindShape(Operation *op, Value result, Shape shape) {
    return bind(op, result, shapeOnly(elementTypeOf(result), std::move(shape)));
  }

  LogicalResult visit(Operation *op);
  /// Visits the ops of a region's block, all but its terminator.
  LogicalResult visitBody(Block &block);

  // indexpool ops (EvaluateIndexPoolOps.cpp).
  LogicalResult visitPool(PoolOp op);
  LogicalResult visitHadamard(HadamardOp op);
  LogicalResult visitQuantize(QuantizeOp op);
  LogicalResult visitDequantize(DequantizeOp op);
  LogicalResult visitResidual(ResidualOp op);
  LogicalResult visitReconstruct(ReconstructOp op);
  LogicalResult visitScore(ScoreOp op);
  LogicalResult visitTopK(TopKOp op);
  LogicalResult visitExpand(ExpandOp op);
  LogicalResult visitCompress(CompressOp op);
  LogicalResult visitSelect(SelectOp op);
  LogicalResult visitRefine(RefineOp op);
  LogicalResult visitCompressPaged(CompressPagedOp op);
  LogicalResult visitSelectPaged(SelectPagedOp op);
  LogicalResult visitAppendPaged(AppendPagedOp op);
  LogicalResult visitRefinePaged(RefinePagedOp op);

  // arith, tensor, bufferization (EvaluateTensorOps.cpp).
  LogicalResult visitConstant(arith::ConstantOp op);
  LogicalResult visitElementwise(Operation *op);
  /// addi / subi / muli on index or integer scalars (sizes for
  /// tensor.empty).
  LogicalResult visitScalarArithmetic(Operation *op);
  LogicalResult visitEmpty(tensor::EmptyOp op);
  LogicalResult visitCast(tensor::CastOp op);
  LogicalResult visitDim(tensor::DimOp op);
  LogicalResult visitExtractSlice(tensor::ExtractSliceOp op);
  LogicalResult visitInsertSlice(tensor::InsertSliceOp op);
  LogicalResult visitReshape(Operation *op, Value source, Value result,
                             ValueRange dynamicSizes);
  /// The values of mixed static / dynamic sizes (offsets, sizes, strides).
  FailureOr<Shape> valuesOf(Operation *op, ArrayRef<OpFoldResult> mixed);
  /// The sizes of slice op `op` (extract or insert) and the flat positions
  /// it addresses in a tensor of `shape`; an error when it leaves it.
  LogicalResult sliceOf(OffsetSizeAndStrideOpInterface op, const Shape &shape,
                        Shape &sizes, std::vector<int64_t> &positions);
  LogicalResult visitIndexCast(Operation *op);
  LogicalResult visitScalarDivision(Operation *op);
  LogicalResult visitMaterialize(bufferization::MaterializeInDestinationOp op);

  // scf, func (EvaluateControlFlow.cpp).
  LogicalResult visitFor(scf::ForOp op);
  LogicalResult visitExecuteRegion(scf::ExecuteRegionOp op);
  LogicalResult visitReturn(func::ReturnOp op);

  func::FuncOp func;
  bool shapesOnly;
  /// Inputs are the caller's tensors (never copied); every other value is
  /// owned by `computed` (a deque: references stay valid as it grows).
  llvm::DenseMap<Value, const HostTensor *> values;
  std::deque<HostTensor> computed;
  llvm::DenseMap<Value, int64_t> scalars;
  std::deque<HostTensor> scratch;
};

} // namespace mlir::indexpool::evaluator

#endif // INDEXPOOL_LIB_EVALUATOR_INTERPRETER_H
