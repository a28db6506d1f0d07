//===- Evaluator.cpp - the float64 reference evaluator over the IR --------===//
//
// An interpreter over one func.func: every value maps to a reference
// HostTensor (or, for index scalars, an int64). Each op is checked with the
// reference's check function before it runs, so that dynamic sizes that break
// a relation of docs/IndexPoolOps.md end in one message, never in an assertion.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Evaluator/Evaluator.h"
#include "indexpool/Runtime/InputShape.h"

#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Dialect/Shapes.h"
#include "indexpool/Reference/Paged.h"
#include "indexpool/Reference/RandomInputs.h"
#include "indexpool/Reference/Reference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <random>
#include <type_traits>

using namespace mlir;
using namespace mlir::indexpool;
using ref::ElementType;
using ref::HostTensor;

using Shape = std::vector<int64_t>;

//===----------------------------------------------------------------------===//
// Types and names
//===----------------------------------------------------------------------===//

std::optional<ElementType> mlir::indexpool::toElementType(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (isa<Float8E4M3FNType>(type))
    return ElementType::F8E4M3FN;
  if (type.isSignlessInteger(8))
    return ElementType::I8;
  if (type.isSignlessInteger(32))
    return ElementType::I32;
  if (type.isSignlessInteger(64))
    return ElementType::I64;
  return std::nullopt;
}

std::string mlir::indexpool::describeOp(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (auto loc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    text += " at " + loc.getFilename().str() + ":" +
            std::to_string(loc.getLine()) + ":" +
            std::to_string(loc.getColumn());
  return text;
}

static std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

static Shape shapeOf(RankedTensorType type) {
  return Shape(type.getShape().begin(), type.getShape().end());
}

/// A tensor of `shape` whose data is left empty (shapes-only evaluation).
static HostTensor shapeOnly(ElementType type, Shape shape) {
  return HostTensor{type, std::move(shape), {}};
}

static bool hasData(const HostTensor &t) {
  return t.data.size() == size_t(t.numElements());
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

bool mlir::indexpool::fitsType(ArrayRef<int64_t> shape,
                               RankedTensorType type) {
  if (int64_t(shape.size()) != type.getRank())
    return false;
  for (auto [size, expected] : llvm::zip(shape, type.getShape()))
    if (!ShapedType::isDynamic(expected) && size != expected)
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

namespace {

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
  LogicalResult visitCompressPaged(CompressPagedOp op);
  LogicalResult visitSelectPaged(SelectPagedOp op);
  LogicalResult visitAppendPaged(AppendPagedOp op);
  LogicalResult visitConstant(arith::ConstantOp op);
  LogicalResult visitElementwise(Operation *op);
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

} // namespace

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
      .Case([&](CompressPagedOp op) { return visitCompressPaged(op); })
      .Case([&](SelectPagedOp op) { return visitSelectPaged(op); })
      .Case([&](AppendPagedOp op) { return visitAppendPaged(op); })
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

//===----------------------------------------------------------------------===//
// indexpool ops
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// The paged serving layout (docs/serving-layout.md)
//===----------------------------------------------------------------------===//

/// The page layout of a paged op whose keys or queries have `dim` channels.
template <typename PagedOp>
static ref::PageLayout pageLayoutOf(PagedOp op, int64_t dim) {
  ref::PageLayout layout;
  layout.entries = int64_t(op.getPageEntries());
  layout.dim = dim;
  layout.codes =
      toElementType(op.getCodesType()).value_or(ElementType::F8E4M3FN);
  layout.scalesFirst = op.getScalesFirst();
  return layout;
}

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

//===----------------------------------------------------------------------===//
// arith, tensor, func
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::visitConstant(arith::ConstantOp op) {
  Type type = op.getType();
  if (type.isIndex() || type.isSignlessInteger()) {
    scalars[op.getResult()] = cast<IntegerAttr>(op.getValue()).getInt();
    return success();
  }
  auto tensorType = dyn_cast<RankedTensorType>(type);
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!tensorType || !dense)
    return fail(op, "only dense tensor and integer scalar constants are "
                    "supported by the reference evaluator");
  ElementType element = elementTypeOf(op.getResult());
  HostTensor t = shapeOnly(element, shapeOf(tensorType));
  if (!shapesOnly) {
    if (ref::isFloatType(element)) {
      for (const APFloat &value : dense.getValues<APFloat>()) {
        APFloat wide = value;
        bool losesInfo;
        wide.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                     &losesInfo);
        t.data.push_back(wide.convertToDouble());
      }
    } else {
      for (const APInt &value : dense.getValues<APInt>())
        t.data.push_back(double(value.getSExtValue()));
    }
  }
  return bind(op, op.getResult(), std::move(t));
}

/// Two's-complement wrap of `value` to `bits` bits, as arith integer ops do.
static double wrapInteger(int64_t value, unsigned bits) {
  uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  uint64_t wrapped = uint64_t(value) & mask;
  if (bits < 64 && (wrapped >> (bits - 1)) & 1)
    wrapped |= ~mask;
  return double(int64_t(wrapped));
}

/// IEEE maximum/minimum: NaN propagates, -0 < +0.
static double ieeeMaximum(double a, double b, bool maximum) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b) // +0 / -0
    return maximum ? (std::signbit(a) ? b : a) : (std::signbit(a) ? a : b);
  return maximum ? std::max(a, b) : std::min(a, b);
}

LogicalResult Interpreter::visitElementwise(Operation *op) {
  Value result = op->getResult(0);
  // Scalar index/integer arithmetic (sizes for tensor.empty).
  if (!isa<RankedTensorType>(result.getType())) {
    if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op))
      return fail(op, "only tensor operands are supported by the reference "
                      "evaluator");
    auto lhs = scalars.find(op->getOperand(0));
    auto rhs = scalars.find(op->getOperand(1));
    if (lhs == scalars.end() || rhs == scalars.end())
      return fail(op, "an operand is not a known integer");
    int64_t a = lhs->second, b = rhs->second, value;
    bool overflow = isa<arith::AddIOp>(op)
                        ? __builtin_add_overflow(a, b, &value)
                    : isa<arith::SubIOp>(op)
                        ? __builtin_sub_overflow(a, b, &value)
                        : __builtin_mul_overflow(a, b, &value);
    if (overflow)
      return fail(op, std::to_string(a) + " and " + std::to_string(b) +
                          ": the result overflows int64");
    scalars[result] = value;
    return success();
  }
  for (Value v : op->getOperands())
    if (!hasValue(v))
      return fail(op, "an operand is not a tensor the evaluator computed");
  const HostTensor &lhs = operand(op->getOperand(0));
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (operand(v).shape != lhs.shape)
      return fail(op, "operand #" + std::to_string(i) + " is " +
                          ref::shapeString(operand(v).shape) +
                          ", operand #0 is " + ref::shapeString(lhs.shape) +
                          " (elementwise operands must have one shape)");
  ElementType element = elementTypeOf(result);
  HostTensor t = shapeOnly(element, lhs.shape);
  if (shapesOnly)
    return bind(op, result, std::move(t));
  const HostTensor *rhs =
      op->getNumOperands() > 1 ? &operand(op->getOperand(1)) : nullptr;
  unsigned bits = cast<RankedTensorType>(result.getType())
                      .getElementType()
                      .getIntOrFloatBitWidth();
  t.data.resize(lhs.data.size());
  for (size_t i = 0; i < t.data.size(); ++i) {
    double a = lhs.data[i], b = rhs ? rhs->data[i] : 0.0;
    double value =
        llvm::TypeSwitch<Operation *, double>(op)
            .Case([&](arith::AddFOp) { return a + b; })
            .Case([&](arith::SubFOp) { return a - b; })
            .Case([&](arith::MulFOp) { return a * b; })
            .Case([&](arith::DivFOp) { return a / b; })
            .Case([&](arith::MaximumFOp) { return ieeeMaximum(a, b, true); })
            .Case([&](arith::MinimumFOp) { return ieeeMaximum(a, b, false); })
            .Case([&](arith::NegFOp) { return -a; })
            .Case([&](arith::AddIOp) {
              return wrapInteger(int64_t(a) + int64_t(b), bits);
            })
            .Case([&](arith::SubIOp) {
              return wrapInteger(int64_t(a) - int64_t(b), bits);
            })
            .Case([&](arith::MulIOp) {
              // Wraps in unsigned arithmetic: no signed overflow in C++.
              return wrapInteger(
                  int64_t(uint64_t(int64_t(a)) * uint64_t(int64_t(b))), bits);
            })
            .Default([](Operation *) { return 0.0; });
    // One rounding from the exact double result (exact for +, -, *, / of
    // f32 and narrower operands).
    t.data[i] =
        ref::isFloatType(element) ? ref::roundTo(value, element) : value;
  }
  return bind(op, result, std::move(t));
}

LogicalResult Interpreter::visitEmpty(tensor::EmptyOp op) {
  RankedTensorType type = op.getType();
  Shape shape = shapeOf(type);
  auto dynamicSizes = op.getDynamicSizes();
  size_t next = 0;
  for (int64_t &size : shape) {
    if (!ShapedType::isDynamic(size))
      continue;
    auto known = scalars.find(dynamicSizes[next++]);
    if (known == scalars.end())
      return fail(op, "a dynamic size is not a known integer");
    if (known->second < 0)
      return fail(op, "negative size " + std::to_string(known->second));
    size = known->second;
  }
  ElementType element = elementTypeOf(op.getResult());
  return bind(op, op.getResult(),
              shapesOnly ? shapeOnly(element, shape)
                         : HostTensor::zeros(element, shape));
}

LogicalResult Interpreter::visitCast(tensor::CastOp op) {
  if (!hasValue(op.getSource()))
    return fail(op, "the source is not a tensor the evaluator computed");
  HostTensor t = operand(op.getSource());
  t.type = elementTypeOf(op.getResult());
  return bind(op, op.getResult(), std::move(t));
}

LogicalResult Interpreter::visitDim(tensor::DimOp op) {
  auto index = scalars.find(op.getIndex());
  if (!hasValue(op.getSource()) || index == scalars.end())
    return fail(op, "the source or the index is not known");
  const HostTensor &source = operand(op.getSource());
  if (index->second < 0 || index->second >= source.rank())
    return fail(op, "dimension " + std::to_string(index->second) +
                        " is out of range for " +
                        ref::shapeString(source.shape));
  scalars[op.getResult()] = source.shape[size_t(index->second)];
  return success();
}

FailureOr<Shape> Interpreter::valuesOf(Operation *op,
                                       ArrayRef<OpFoldResult> mixed) {
  Shape values;
  for (OpFoldResult v : mixed) {
    if (std::optional<int64_t> c = getConstantIntValue(v)) {
      values.push_back(*c);
      continue;
    }
    auto known = scalars.find(cast<Value>(v));
    if (known == scalars.end()) {
      (void)fail(op, "an offset, size or stride is not a known integer");
      return failure();
    }
    values.push_back(known->second);
  }
  return values;
}

/// The flat positions of the elements of a slice of `shape` (row-major),
/// or an error when the slice leaves the tensor.
static std::string slicePositions(const Shape &shape, const Shape &offsets,
                                  const Shape &sizes, const Shape &strides,
                                  std::vector<int64_t> &positions) {
  for (size_t d = 0; d < shape.size(); ++d) {
    if (sizes[d] < 0 || strides[d] < 1 || offsets[d] < 0)
      return "dimension " + std::to_string(d) + ": offset " +
             std::to_string(offsets[d]) + ", size " + std::to_string(sizes[d]) +
             " and stride " + std::to_string(strides[d]) + " are not a slice";
    if (sizes[d] > 0 &&
        offsets[d] + (sizes[d] - 1) * strides[d] >= shape[d])
      return "dimension " + std::to_string(d) + ": the slice [" +
             std::to_string(offsets[d]) + ", +" + std::to_string(sizes[d]) +
             " x " + std::to_string(strides[d]) + ") leaves the size " +
             std::to_string(shape[d]);
  }
  int64_t count = ref::numElements(sizes);
  positions.clear();
  positions.reserve(size_t(std::max<int64_t>(count, 0)));
  std::vector<int64_t> at(sizes.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      flat = flat * shape[d] + offsets[d] + at[d] * strides[d];
    positions.push_back(flat);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++at[d] < sizes[d])
        break;
      at[d] = 0;
    }
  }
  return "";
}

LogicalResult Interpreter::sliceOf(OffsetSizeAndStrideOpInterface op,
                                   const Shape &shape, Shape &sizes,
                                   std::vector<int64_t> &positions) {
  FailureOr<Shape> offsets = valuesOf(op, op.getMixedOffsets());
  FailureOr<Shape> sliceSizes = valuesOf(op, op.getMixedSizes());
  FailureOr<Shape> strides = valuesOf(op, op.getMixedStrides());
  if (failed(offsets) || failed(sliceSizes) || failed(strides))
    return failure();
  sizes = *sliceSizes;
  std::string why = slicePositions(shape, *offsets, sizes, *strides, positions);
  if (!why.empty())
    return fail(op, why);
  return success();
}

LogicalResult Interpreter::visitExtractSlice(tensor::ExtractSliceOp op) {
  if (!hasValue(op.getSource()))
    return fail(op, "the source is not a tensor the evaluator computed");
  const HostTensor &source = operand(op.getSource());
  Shape sizes;
  std::vector<int64_t> positions;
  if (failed(sliceOf(op, source.shape, sizes, positions)))
    return failure();
  // A rank-reducing slice drops unit dimensions: the result type says which.
  Shape shape;
  llvm::SmallBitVector dropped = op.getDroppedDims();
  for (size_t d = 0; d < sizes.size(); ++d)
    if (!dropped.test(d))
      shape.push_back(sizes[d]);
  HostTensor t{source.type, shape, {}};
  if (!shapesOnly)
    for (int64_t position : positions)
      t.data.push_back(source.data[size_t(position)]);
  return bind(op, op.getResult(), std::move(t));
}

LogicalResult Interpreter::visitInsertSlice(tensor::InsertSliceOp op) {
  if (!hasValue(op.getSource()) || !hasValue(op.getDest()))
    return fail(op, "the source or the destination is not a tensor the "
                    "evaluator computed");
  const HostTensor &source = operand(op.getSource());
  HostTensor t = operand(op.getDest());
  Shape sizes;
  std::vector<int64_t> positions;
  if (failed(sliceOf(op, t.shape, sizes, positions)))
    return failure();
  if (int64_t(positions.size()) != source.numElements())
    return fail(op, "the source " + ref::shapeString(source.shape) +
                        " does not fill the slice " +
                        ref::shapeString(sizes));
  if (!shapesOnly)
    for (size_t i = 0; i < positions.size(); ++i)
      t.data[size_t(positions[i])] = source.data[i];
  return bind(op, op.getResult(), std::move(t));
}

LogicalResult Interpreter::visitReshape(Operation *op, Value source,
                                        Value result,
                                        ValueRange dynamicSizes) {
  if (!hasValue(source))
    return fail(op, "the source is not a tensor the evaluator computed");
  HostTensor t = operand(source);
  auto type = cast<RankedTensorType>(result.getType());
  // The result's sizes: static ones from its type; a dynamic one from the
  // op's output_shape (expand) or as what the elements leave (collapse).
  Shape shape = shapeOf(type);
  size_t next = 0;
  int64_t known = 1, unknown = -1;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (!ShapedType::isDynamic(size)) {
      known *= size;
      continue;
    }
    if (next < dynamicSizes.size()) {
      auto value = scalars.find(dynamicSizes[next++]);
      if (value == scalars.end())
        return fail(op, "a dynamic size is not a known integer");
      size = value->second;
      known *= size;
      continue;
    }
    if (unknown >= 0)
      return fail(op, "more than one size to infer");
    unknown = int64_t(d);
  }
  int64_t elements = t.numElements();
  if (unknown >= 0)
    shape[size_t(unknown)] = known > 0 ? elements / known : 0;
  if (ref::numElements(shape) != elements)
    return fail(op, "the source " + ref::shapeString(t.shape) +
                        " does not reshape to " + ref::shapeString(shape));
  t.shape = shape;
  return bind(op, result, std::move(t));
}

LogicalResult Interpreter::visitIndexCast(Operation *op) {
  Value result = op->getResult(0);
  if (isa<RankedTensorType>(result.getType()))
    return fail(op, "only index and integer scalars are supported by the "
                    "reference evaluator");
  auto known = scalars.find(op->getOperand(0));
  if (known == scalars.end())
    return fail(op, "the operand is not a known integer");
  int64_t value = known->second;
  // Casts to a narrower integer wrap; index is 64 bits here.
  auto bitsOf = [](Type type) {
    return type.isIndex() ? 64u : type.getIntOrFloatBitWidth();
  };
  unsigned bits = bitsOf(result.getType());
  unsigned sourceBits = bitsOf(op->getOperand(0).getType());
  if (isa<arith::IndexCastUIOp>(op) && sourceBits < 64)
    value = int64_t(uint64_t(value) & ((uint64_t(1) << sourceBits) - 1));
  scalars[result] = int64_t(wrapInteger(value, bits));
  return success();
}

LogicalResult Interpreter::visitScalarDivision(Operation *op) {
  if (isa<RankedTensorType>(op->getResult(0).getType()))
    return fail(op, "only index and integer scalars are supported by the "
                    "reference evaluator");
  auto lhs = scalars.find(op->getOperand(0));
  auto rhs = scalars.find(op->getOperand(1));
  if (lhs == scalars.end() || rhs == scalars.end())
    return fail(op, "an operand is not a known integer");
  int64_t a = lhs->second, b = rhs->second;
  bool isUnsigned = isa<arith::DivUIOp, arith::RemUIOp>(op);
  // Sizes and offsets: the unsigned forms are only evaluated on values
  // that are the same signed.
  if (b == 0 || (isUnsigned && (a < 0 || b < 0)) ||
      (a == std::numeric_limits<int64_t>::min() && b == -1))
    return fail(op, std::to_string(a) + " and " + std::to_string(b) +
                        ": the division is not defined here");
  bool quotient = isa<arith::DivSIOp, arith::DivUIOp>(op);
  scalars[op->getResult(0)] = quotient ? a / b : a % b;
  return success();
}

/// On tensors, the destination's contents replaced by the source's: the
/// result is the source (a loop yields it so that bufferization writes the
/// new value into the iter_arg's own buffer).
LogicalResult Interpreter::visitMaterialize(
    bufferization::MaterializeInDestinationOp op) {
  Value result = op.getResult();
  if (!result || !hasValue(op.getSource()) || !hasValue(op.getDest()))
    return fail(op, "only tensor sources and destinations are supported by "
                    "the reference evaluator");
  const HostTensor &source = operand(op.getSource());
  if (source.shape != operand(op.getDest()).shape)
    return fail(op, "the source " + ref::shapeString(source.shape) +
                        " does not have the shape of the destination " +
                        ref::shapeString(operand(op.getDest()).shape));
  return bind(op, result, source);
}

/// More iterations than this are refused: shapes-only runs (which validate
/// inputs before compiled code runs) walk every iteration too.
constexpr int64_t kMaxIterations = int64_t(1) << 20;

LogicalResult Interpreter::visitFor(scf::ForOp op) {
  auto knownOf = [&](Value v) -> std::optional<int64_t> {
    auto known = scalars.find(v);
    if (known == scalars.end())
      return std::nullopt;
    return known->second;
  };
  std::optional<int64_t> lower = knownOf(op.getLowerBound());
  std::optional<int64_t> upper = knownOf(op.getUpperBound());
  std::optional<int64_t> step = knownOf(op.getStep());
  if (!lower || !upper || !step)
    return fail(op, "the bounds and the step must be known integers");
  if (*step <= 0)
    return fail(op, "the step must be positive, got " + std::to_string(*step));
  if (op.getUnsignedCmp() && (*lower < 0 || *upper < 0))
    return fail(op, "unsigned bounds beyond 2^63 are not supported by the "
                    "reference evaluator");
  int64_t iterations =
      *upper > *lower ? (*upper - *lower - 1) / *step + 1 : 0;
  if (iterations > kMaxIterations)
    return fail(op, std::to_string(iterations) +
                        " iterations: more than the reference evaluator "
                        "runs (" +
                        std::to_string(kMaxIterations) + ")");

  // The loop-carried values: an index/integer scalar or a tensor each.
  struct Carried {
    std::optional<int64_t> scalar;
    HostTensor tensor;
  };
  auto carry = [&](Value v, Carried &c) -> LogicalResult {
    if (isa<RankedTensorType>(v.getType())) {
      if (!hasValue(v))
        return failure();
      c.tensor = operand(v);
      c.scalar.reset();
      return success();
    }
    c.scalar = knownOf(v);
    return success(c.scalar.has_value());
  };
  std::vector<Carried> carried(op.getInitArgs().size());
  for (auto [i, init] : llvm::enumerate(op.getInitArgs()))
    if (failed(carry(init, carried[i])))
      return fail(op, "iter_arg #" + std::to_string(i) +
                          " is neither a tensor the evaluator computed nor a "
                          "known integer");

  // Each iteration's values replace the previous iteration's (so that a
  // long loop holds two iterations, not all of them); the last iteration's
  // stay bound, for what reads body values after the run (--verify's
  // page layouts and selection contexts).
  size_t mark = computed.size();
  Block *body = op.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (int64_t n = 0; n < iterations; ++n) {
    computed.resize(mark);
    scalars[op.getInductionVar()] = *lower + n * *step;
    for (auto [arg, c] : llvm::zip_equal(op.getRegionIterArgs(), carried)) {
      if (c.scalar) {
        scalars[arg] = *c.scalar;
        continue;
      }
      computed.push_back(std::move(c.tensor));
      values[arg] = &computed.back();
    }
    for (Operation &bodyOp : body->without_terminator()) {
      if (failed(visit(&bodyOp)))
        return failure();
      scratch.clear();
    }
    for (auto [i, v] : llvm::enumerate(yield.getOperands()))
      if (failed(carry(v, carried[i])))
        return fail(yield, "yielded value #" + std::to_string(i) +
                               " is neither a tensor the evaluator computed "
                               "nor a known integer");
  }
  for (auto [result, c] : llvm::zip_equal(op.getResults(), carried)) {
    if (c.scalar) {
      scalars[result] = *c.scalar;
      continue;
    }
    if (failed(bind(op, result, std::move(c.tensor))))
      return failure();
  }
  return success();
}

LogicalResult Interpreter::visitExecuteRegion(scf::ExecuteRegionOp op) {
  if (!op.getRegion().hasOneBlock())
    return fail(op, "a region of more than one block (control flow) is not "
                    "supported by the reference evaluator");
  Block &block = op.getRegion().front();
  for (Operation &bodyOp : block.without_terminator()) {
    if (failed(visit(&bodyOp)))
      return failure();
    scratch.clear();
  }
  auto yield = cast<scf::YieldOp>(block.getTerminator());
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip_equal(op.getResults(), yield.getOperands()))) {
    auto [result, v] = pair;
    if (auto known = scalars.find(v); known != scalars.end()) {
      scalars[result] = known->second;
      continue;
    }
    if (!hasValue(v))
      return fail(yield, "yielded value #" + std::to_string(i) +
                             " is neither a tensor the evaluator computed nor "
                             "a known integer");
    if (failed(bind(op, result, operand(v))))
      return failure();
  }
  return success();
}

LogicalResult Interpreter::visitReturn(func::ReturnOp op) {
  results.clear();
  for (Value v : op.getOperands()) {
    if (!hasValue(v))
      return fail(op, "a returned value is not a tensor");
    const HostTensor &t = operand(v);
    results.push_back(shapesOnly ? shapeOnly(t.type, t.shape) : t);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

FailureOr<std::vector<HostTensor>>
mlir::indexpool::evaluateFunction(func::FuncOp func,
                                  ArrayRef<HostTensor> inputs,
                                  std::string &error, bool shapesOnly) {
  Interpreter interpreter(func, shapesOnly);
  if (failed(interpreter.run(inputs))) {
    error = interpreter.error;
    return failure();
  }
  return std::move(interpreter.results);
}

LogicalResult mlir::indexpool::specializeShapes(
    func::FuncOp func, ArrayRef<std::vector<int64_t>> shapes,
    std::string &error) {
  std::vector<HostTensor> inputs;
  for (auto [i, argType] : llvm::enumerate(func.getArgumentTypes())) {
    auto type = dyn_cast<RankedTensorType>(argType);
    std::optional<ElementType> element =
        type ? toElementType(type.getElementType()) : std::nullopt;
    if (!element || i >= shapes.size()) {
      error = "argument #" + std::to_string(i) + " of @" +
              func.getSymName().str() + " has type " + typeString(argType) +
              (element ? " and no shape" : ": not a tensor the evaluator "
                                           "knows");
      return failure();
    }
    HostTensor t;
    t.type = *element;
    t.shape = shapes[i];
    inputs.push_back(std::move(t));
  }
  Interpreter interpreter(func, /*shapesOnly=*/true);
  if (failed(interpreter.run(inputs))) {
    error = interpreter.error;
    return failure();
  }
  auto retype = [&](Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !interpreter.hasValue(v))
      return;
    v.setType(RankedTensorType::get(interpreter.valueOf(v).shape,
                                    type.getElementType(),
                                    type.getEncoding()));
  };
  for (BlockArgument arg : func.getArguments())
    retype(arg);
  // A loop keeps the types it has: its values are rebound every iteration
  // (their shapes may change with it), and its results must keep the types
  // of its iter_args; an execute_region's results keep its yield's types.
  func.walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::ExecuteRegionOp>(op) ||
        op->getParentOfType<scf::ForOp>() ||
        op->getParentOfType<scf::ExecuteRegionOp>())
      return;
    for (Value result : op->getResults())
      retype(result);
  });
  // Between the static code and a loop or execute_region that kept its
  // types: casts, an init to its iter_arg's type, a result to its shape.
  func.walk([&](Operation *op) {
    if (!isa<scf::ForOp, scf::ExecuteRegionOp>(op) ||
        op->getParentOfType<scf::ForOp>() ||
        op->getParentOfType<scf::ExecuteRegionOp>())
      return;
    OpBuilder b(op);
    if (auto loop = dyn_cast<scf::ForOp>(op))
      for (auto [init, arg] : llvm::zip_equal(loop.getInitArgsMutable(),
                                              loop.getRegionIterArgs()))
        if (init.get().getType() != arg.getType())
          init.set(tensor::CastOp::create(b, loop.getLoc(), arg.getType(),
                                          init.get()));
    b.setInsertionPointAfter(op);
    for (Value result : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type || !interpreter.hasValue(result))
        continue;
      auto shaped =
          RankedTensorType::get(interpreter.valueOf(result).shape,
                                type.getElementType(), type.getEncoding());
      if (shaped == type)
        continue;
      auto cast = tensor::CastOp::create(b, op->getLoc(), shaped, result);
      result.replaceAllUsesExcept(cast, cast);
    }
  });
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  func.setFunctionType(FunctionType::get(
      func.getContext(), func.getBody().front().getArgumentTypes(),
      ret.getOperandTypes()));
  return success();
}

LogicalResult
mlir::indexpool::parseInputShape(StringRef text, unsigned numArgs,
                                 std::map<unsigned, std::vector<int64_t>> &shapes,
                                 std::string &error) {
  // The runtime's parser (indexpool-launch reads the same option).
  std::map<size_t, std::vector<int64_t>> given(shapes.begin(), shapes.end());
  if (!::indexpool::runtime::parseInputShape(text.str(), numArgs, given, error,
                                             "argument"))
    return failure();
  shapes.clear();
  for (auto &[index, shape] : given)
    shapes[unsigned(index)] = std::move(shape);
  return success();
}

/// The value a loop's (or an execute_region's) result was last yielded from,
/// through nested ones and through materialize_in_destination (its source);
/// `v` itself for any other value.
static Value throughLoops(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (auto materialize =
            dyn_cast<bufferization::MaterializeInDestinationOp>(op)) {
      v = materialize.getSource();
      continue;
    }
    if (!isa<scf::ForOp, scf::ExecuteRegionOp>(op))
      break;
    Block &body = op->getRegion(0).front();
    v = body.getTerminator()->getOperand(cast<OpResult>(v).getResultNumber());
  }
  return v;
}

/// The selection context of a returned value, if it is one.
static std::optional<SelectionContext>
selectionContextOf(Value v, const Interpreter &interpreter) {
  auto contextOfTopK =
      [&](TopKOp topk, int64_t poolSize) -> std::optional<SelectionContext> {
    if (!topk.getLogits().getDefiningOp<ScoreOp>())
      return std::nullopt;
    SelectionContext context;
    context.logits = interpreter.valueOf(topk.getLogits());
    if (topk.getValid())
      context.valid = interpreter.valueOf(topk.getValid());
    context.poolSize = poolSize;
    return context;
  };
  if (auto topk = v.getDefiningOp<TopKOp>()) {
    if (v == topk.getIndices())
      return contextOfTopK(topk, 1);
    return std::nullopt;
  }
  if (auto expand = v.getDefiningOp<ExpandOp>()) {
    auto topk = expand.getIndices().getDefiningOp<TopKOp>();
    if (topk && expand.getIndices() == topk.getIndices())
      return contextOfTopK(topk, int64_t(expand.getPoolSize()));
    return std::nullopt;
  }
  if (auto paged = v.getDefiningOp<SelectPagedOp>()) {
    const HostTensor &q = interpreter.valueOf(paged.getQuery());
    return ::indexpool::runtime::selectPagedContext(
        q, interpreter.valueOf(paged.getWeights()),
        interpreter.valueOf(paged.getPages()),
        interpreter.valueOf(paged.getBlockTable()),
        interpreter.valueOf(paged.getLengths()), int64_t(paged.getPoolSize()),
        pageLayoutOf(paged, q.shape[3]));
  }
  if (auto select = v.getDefiningOp<SelectOp>()) {
    SelectionContext context;
    const HostTensor *scales =
        select.getScales() ? &interpreter.valueOf(select.getScales()) : nullptr;
    context.logits = ref::score(interpreter.valueOf(select.getQuery()),
                                interpreter.valueOf(select.getWeights()),
                                interpreter.valueOf(select.getKeys()), scales);
    if (select.getValid())
      context.valid = interpreter.valueOf(select.getValid());
    context.poolSize = int64_t(select.getPoolSize());
    return context;
  }
  return std::nullopt;
}

FailureOr<ReferenceRun> mlir::indexpool::evaluateReference(
    func::FuncOp func, ArrayRef<HostTensor> inputs, std::string &error) {
  Interpreter interpreter(func, /*shapesOnly=*/false);
  if (failed(interpreter.run(inputs))) {
    error = interpreter.error;
    return failure();
  }
  ReferenceRun run;
  run.results = std::move(interpreter.results);
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (Value returned : ret.getOperands()) {
    // A loop's result is compared as what its last iteration computed (the
    // interpreter keeps that iteration's values); a loop of no iterations
    // returns its init value, compared as a plain tensor.
    Value v = throughLoops(returned);
    if (!interpreter.hasValue(v))
      v = returned;
    run.selections.push_back(selectionContextOf(v, interpreter));
    std::optional<ref::PageLayout> layout;
    if (auto compress = v.getDefiningOp<CompressPagedOp>())
      layout = pageLayoutOf(compress, interpreter.valueOf(compress.getKeys())
                                          .shape[1]);
    else if (auto append = v.getDefiningOp<AppendPagedOp>();
             append && v == append.getResult())
      layout =
          pageLayoutOf(append, interpreter.valueOf(append.getKeys()).shape[2]);
    run.pageLayouts.push_back(layout);
  }
  return run;
}

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

/// The name (Dialect/OpContract.h, as docs/IndexPoolOps.md gives it) of the
/// operand that `use` fills; "" for an op that is not an indexpool one.
static std::string operandNameOfUse(OpOperand &use) {
  Operation *op = use.getOwner();
  if (!isa<IndexPoolDialect>(op->getDialect()))
    return "";
  // The contract's operands in order, absent optional ones skipped.
  unsigned number = 0;
  for (auto [contract, value] : llvm::zip_equal(
           getOpContract(op).operands, getContractOperands(op))) {
    if (!value)
      continue;
    if (number++ == use.getOperandNumber())
      return contract.name;
  }
  return "";
}

/// The distribution a use of a value asks for (ref::distributionOfOperand),
/// with the operand's name for messages.
static std::pair<InputDistribution, std::string>
distributionOfUse(OpOperand &use) {
  Operation *op = use.getOwner();
  std::string number = "operand #" + std::to_string(use.getOperandNumber());
  std::string name = operandNameOfUse(use);
  if (name.empty())
    return {InputDistribution::Default, number};
  Type element =
      cast<RankedTensorType>(use.get().getType()).getElementType();
  InputDistribution distribution = ref::distributionOfOperand(
      op->getName().stripDialect(), name,
      toElementType(element).value_or(ElementType::F32));
  // Single-input ops name the operand by number, as they always did.
  if (isa<HadamardOp, QuantizeOp, ResidualOp, ReconstructOp>(op))
    return {distribution, number};
  return {distribution, name};
}

std::vector<InputDescription>
mlir::indexpool::describeInputs(func::FuncOp func) {
  std::vector<InputDescription> descriptions(func.getNumArguments());
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    InputDescription &description = descriptions[i];
    description.use = "not used by an indexpool op";
    // Uses in program order, so that the first of equally specific uses
    // names the argument.
    llvm::SmallVector<OpOperand *> uses;
    for (OpOperand &use : arg.getUses())
      if (use.getOwner()->getBlock() == arg.getOwner())
        uses.push_back(&use);
    llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
      if (a->getOwner() != b->getOwner())
        return a->getOwner()->isBeforeInBlock(b->getOwner());
      return a->getOperandNumber() < b->getOperandNumber();
    });
    bool first = true;
    for (OpOperand *use : uses) {
      auto [distribution, name] = distributionOfUse(*use);
      if (!first && ref::distributionSpecificity(distribution) <=
                        ref::distributionSpecificity(description.distribution))
        continue;
      first = false;
      description.distribution = distribution;
      description.use = name + " of " + describeOp(use->getOwner());
      bool bounded = distribution == InputDistribution::ValidLengths ||
                     distribution == InputDistribution::PageSlots ||
                     distribution == InputDistribution::PageIds;
      description.lengthsOf = bounded ? use->getOwner() : nullptr;
    }
  }
  return descriptions;
}

FailureOr<std::vector<HostTensor>>
mlir::indexpool::generateRandomInputs(func::FuncOp func,
                                      ArrayRef<std::vector<int64_t>> shapes,
                                      uint64_t seed, std::string &error) {
  // Validate the shapes (and learn the sizes that bound valid lengths) with
  // a shapes-only run before drawing anything.
  std::vector<HostTensor> shapeOnlyInputs;
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    std::optional<ElementType> element =
        type ? toElementType(type.getElementType()) : std::nullopt;
    if (!element) {
      error = "argument #" + std::to_string(i) + " of @" +
              func.getSymName().str() + " has type " +
              typeString(arg.getType()) +
              ": only ranked tensors of f32, f16, bf16, f8E4M3FN, i8, i32 or "
              "i64 are supported";
      return failure();
    }
    shapeOnlyInputs.push_back(
        shapeOnly(*element, i < shapes.size() ? shapes[i] : Shape{}));
  }
  if (shapes.size() != func.getNumArguments()) {
    error = "@" + func.getSymName().str() + " takes " +
            std::to_string(func.getNumArguments()) + " arguments, got " +
            std::to_string(shapes.size()) + " shapes";
    return failure();
  }
  Interpreter shapesRun(func, /*shapesOnly=*/true);
  if (failed(shapesRun.run(shapeOnlyInputs))) {
    error = shapesRun.error;
    return failure();
  }

  std::vector<InputDescription> descriptions = describeInputs(func);
  std::mt19937_64 rng(seed);
  std::vector<HostTensor> inputs;
  for (auto [i, description] : llvm::enumerate(descriptions)) {
    ElementType type = shapeOnlyInputs[i].type;
    const Shape &shape = shapeOnlyInputs[i].shape;
    // The bound of lengths, slots and page ids, from the shapes.
    int64_t columns = 0;
    auto sizeOf = [&](Value v, unsigned dim) {
      return shapesRun.valueOf(v).shape[dim];
    };
    if (Operation *op = description.lengthsOf) {
      if (auto topk = dyn_cast<TopKOp>(op))
        columns = sizeOf(topk.getLogits(), 1);
      else if (auto select = dyn_cast<SelectOp>(op))
        columns = sizeOf(select.getKeys(), 0);
      else if (auto compress = dyn_cast<CompressPagedOp>(op))
        columns = mulDims(sizeOf(compress.getPages(), 0),
                          int64_t(compress.getPageEntries()));
      else if (auto paged = dyn_cast<SelectPagedOp>(op))
        // Lengths: every entry of a table row, and a tail of P - 1.
        columns = description.distribution == InputDistribution::PageIds
                      ? sizeOf(paged.getPages(), 0)
                      : addDims(mulDims(mulDims(sizeOf(paged.getBlockTable(), 1),
                                                int64_t(paged.getPageEntries())),
                                        int64_t(paged.getPoolSize())),
                                int64_t(paged.getPoolSize()) - 1);
      else if (auto append = dyn_cast<AppendPagedOp>(op))
        // Lengths: room for the n new tokens in the table's entries.
        columns = description.distribution == InputDistribution::PageIds
                      ? sizeOf(append.getPages(), 0)
                      : addDims(mulDims(mulDims(sizeOf(append.getBlockTable(), 1),
                                                int64_t(append.getPageEntries())),
                                        int64_t(append.getPoolSize())),
                                -sizeOf(append.getKeys(), 1));
      columns = std::max<int64_t>(columns, 0);
    }
    HostTensor t = ref::drawRandomInput(description.distribution, type, shape,
                                        rng, columns);
    inputs.push_back(std::move(t));
  }
  return inputs;
}
