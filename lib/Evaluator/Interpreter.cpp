//===- Interpreter.cpp - run, bind and dispatch of the evaluator ----------===//
//
// The interpreter's frame: checking the inputs against the arguments, binding
// results against their types, verifying an op on its run-time shapes, and
// dispatching each op to its visit function (in the Evaluate*.cpp files).
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::indexpool;
using namespace mlir::indexpool::evaluator;

std::string mlir::indexpool::evaluator::typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The most elements one tensor of the evaluator may have (16 GiB of
/// float64 values): larger sizes are reported, never allocated.
constexpr int64_t kMaxElements = int64_t(1) << 31;

/// Whether every size is >= 0 and the element count at most kMaxElements
/// (computed without overflow).
static bool isEvaluableShape(const Shape &shape) {
  int64_t count = 1;
  for (int64_t size : shape) {
    if (size < 0)
      return false;
    if (size != 0 && count > kMaxElements / size)
      return false;
    count *= size;
  }
  return count <= kMaxElements;
}

LogicalResult Interpreter::run(ArrayRef<HostTensor> inputs) {
  std::string name = "@" + func.getSymName().str();
  if (func.isExternal()) {
    error = name + " is a declaration (no body to evaluate)";
    return failure();
  }
  if (!func.getBody().hasOneBlock()) {
    error = name + " has more than one block (control flow is not supported "
                   "by the reference evaluator)";
    return failure();
  }
  if (inputs.size() != func.getNumArguments()) {
    error = name + " takes " + std::to_string(func.getNumArguments()) +
            " arguments, got " + std::to_string(inputs.size()) + " inputs";
    return failure();
  }
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    const HostTensor &input = inputs[i];
    std::string which = "argument #" + std::to_string(i) + " of " + name;
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    std::optional<ElementType> element =
        type ? toElementType(type.getElementType()) : std::nullopt;
    if (!element) {
      error = which + " has type " + typeString(arg.getType()) +
              ": only ranked tensors of f32, f16, bf16, f8E4M3FN, i8, i32 or "
              "i64 are supported";
      return failure();
    }
    if (!isEvaluableShape(input.shape)) {
      error = which + ": the input shape " + ref::shapeString(input.shape) +
              " has a negative size or more than 2^31 elements";
      return failure();
    }
    if (input.type != *element || !fitsType(input.shape, type)) {
      error = which + " has type " + typeString(type) + ", but the input is " +
              ref::shapeString(input.shape) + " " +
              ref::elementTypeName(input.type);
      return failure();
    }
    if (!hasData(input) && !(shapesOnly && input.data.empty())) {
      error = which + ": the input holds " + std::to_string(input.data.size()) +
              " values for shape " + ref::shapeString(input.shape);
      return failure();
    }
    values[arg] = &input;
  }
  for (Operation &op : func.getBody().front()) {
    if (failed(visit(&op)))
      return failure();
    scratch.clear();
  }
  return success();
}

/// The op's own verifier, run on a detached copy whose operands have the
/// shapes they have now: dynamic sizes then obey exactly the rules (and get
/// exactly the messages) that static ones do -- k <= N, the i32 index
/// limits, overflow-checked products, every result size the op implies.
LogicalResult Interpreter::verifyConcrete(Operation *op) {
  Block block;
  IRMapping mapping;
  for (Value v : op->getOperands()) {
    auto type = cast<RankedTensorType>(v.getType());
    mapping.map(v, block.addArgument(
                       RankedTensorType::get(operand(v).shape,
                                             type.getElementType(),
                                             type.getEncoding()),
                       op->getLoc()));
  }
  std::string message;
  LogicalResult verified = success();
  {
    ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &diag) {
      if (message.empty() && diag.getSeverity() == DiagnosticSeverity::Error)
        message = diag.str();
      return success();
    });
    Operation *copy = op->clone(mapping);
    verified = mlir::verify(copy);
    copy->destroy();
  }
  if (succeeded(verified))
    return success();
  // "'indexpool.topk' op k must be ..." -> "k must be ...".
  std::string prefix = "'" + op->getName().getStringRef().str() + "' op ";
  if (StringRef(message).starts_with(prefix))
    message = message.substr(prefix.size());
  return fail(op, message.empty() ? "fails to verify with its run-time shapes"
                                  : message);
}

LogicalResult Interpreter::bind(Operation *op, Value result, HostTensor t) {
  auto type = cast<RankedTensorType>(result.getType());
  if (!fitsType(t.shape, type)) {
    std::string which =
        op->getNumResults() == 1
            ? std::string("the result")
            : "result #" +
                  std::to_string(cast<OpResult>(result).getResultNumber());
    return fail(op, which + " is " + ref::shapeString(t.shape) +
                        ", but its type is " + typeString(type));
  }
  if (!isEvaluableShape(t.shape))
    return fail(op, "a result of shape " + ref::shapeString(t.shape) +
                        " is too large for the reference evaluator (more "
                        "than 2^31 elements)");
  computed.push_back(std::move(t));
  values[result] = &computed.back();
  return success();
}

LogicalResult Interpreter::visit(Operation *op) {
  // Every tensor operand and result must have a supported element type.
  for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults())) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (type && !toElementType(type.getElementType()))
      return fail(op, "element type " + typeString(type.getElementType()) +
                          " is not supported by the reference evaluator");
    if (isa<UnrankedTensorType>(v.getType()))
      return fail(op, "unranked tensors are not supported by the reference "
                      "evaluator");
  }
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](PoolOp op) { return visitPool(op); })
      .Case([&](HadamardOp op) { return visitHadamard(op); })
      .Case([&](QuantizeOp op) { return visitQuantize(op); })
      .Case([&](DequantizeOp op) { return visitDequantize(op); })
      .Case([&](ResidualOp op) { return visitResidual(op); })
      .Case([&](ReconstructOp op) { return visitReconstruct(op); })
      .Case([&](ScoreOp op) { return visitScore(op); })
      .Case([&](TopKOp op) { return visitTopK(op); })
      .Case([&](ExpandOp op) { return visitExpand(op); })
      .Case([&](CompressOp op) { return visitCompress(op); })
      .Case([&](SelectOp op) { return visitSelect(op); })
      .Case([&](RefineOp op) { return visitRefine(op); })
      .Case([&](CompressPagedOp op) { return visitCompressPaged(op); })
      .Case([&](SelectPagedOp op) { return visitSelectPaged(op); })
      .Case([&](AppendPagedOp op) { return visitAppendPaged(op); })
      .Case([&](RefinePagedOp op) { return visitRefinePaged(op); })
      .Case([&](arith::ConstantOp op) { return visitConstant(op); })
      .Case<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
            arith::MaximumFOp, arith::MinimumFOp, arith::NegFOp, arith::AddIOp,
            arith::SubIOp, arith::MulIOp>(
          [&](Operation *op) { return visitElementwise(op); })
      .Case([&](tensor::EmptyOp op) { return visitEmpty(op); })
      .Case([&](tensor::CastOp op) { return visitCast(op); })
      .Case([&](tensor::DimOp op) { return visitDim(op); })
      .Case([&](tensor::ExtractSliceOp op) { return visitExtractSlice(op); })
      .Case([&](tensor::InsertSliceOp op) { return visitInsertSlice(op); })
      .Case([&](tensor::CollapseShapeOp op) {
        return visitReshape(op, op.getSrc(), op.getResult(), {});
      })
      .Case([&](tensor::ExpandShapeOp op) {
        return visitReshape(op, op.getSrc(), op.getResult(),
                            op.getOutputShape());
      })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp>(
          [&](Operation *op) { return visitIndexCast(op); })
      .Case<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(
          [&](Operation *op) { return visitScalarDivision(op); })
      .Case([&](scf::ForOp op) { return visitFor(op); })
      .Case([&](scf::ExecuteRegionOp op) { return visitExecuteRegion(op); })
      .Case([&](bufferization::MaterializeInDestinationOp op) {
        return visitMaterialize(op);
      })
      .Case([&](func::ReturnOp op) { return visitReturn(op); })
      .Default([&](Operation *op) {
        return fail(op, "this op is not supported by the reference evaluator");
      });
}

LogicalResult Interpreter::visitBody(Block &block) {
  for (Operation &bodyOp : block.without_terminator()) {
    if (failed(visit(&bodyOp)))
      return failure();
    scratch.clear();
  }
  return success();
}
