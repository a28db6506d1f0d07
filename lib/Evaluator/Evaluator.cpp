//===- Evaluator.cpp - the float64 reference evaluator over the IR --------===//
//
// The public entry points over the interpreter (Interpreter.h):
// evaluateFunction, specializeShapes (a dynamic function made static for
// given argument shapes) and evaluateReference (the reference results with
// the selection contexts and page layouts that --verify compares with).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Evaluator/Evaluator.h"
#include "Interpreter.h"

#include "indexpool/Runtime/InputShape.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

using namespace mlir;
using namespace mlir::indexpool;
using namespace mlir::indexpool::evaluator;

//===----------------------------------------------------------------------===//
// Types and names
//===----------------------------------------------------------------------===//

std::string mlir::indexpool::describeOp(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (auto loc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    text += " at " + loc.getFilename().str() + ":" +
            std::to_string(loc.getLine()) + ":" +
            std::to_string(loc.getColumn());
  return text;
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

/// Shape-only inputs of these shapes for the arguments of `func`.
static FailureOr<std::vector<HostTensor>>
shapeOnlyArguments(func::FuncOp func, ArrayRef<std::vector<int64_t>> shapes,
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
  return inputs;
}

/// The static type of tensor value `v` that a shapes-only run computed;
/// std::nullopt for a value it did not compute.
static std::optional<RankedTensorType>
computedType(Value v, const Interpreter &interpreter) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !interpreter.hasValue(v))
    return std::nullopt;
  return RankedTensorType::get(interpreter.valueOf(v).shape,
                               type.getElementType(), type.getEncoding());
}

/// Whether `op` is, or is inside, a loop or an execute_region: the ops
/// whose values keep the types they have.
static bool keepsItsTypes(Operation *op) {
  return isa<scf::ForOp, scf::ExecuteRegionOp>(op) ||
         op->getParentOfType<scf::ForOp>() ||
         op->getParentOfType<scf::ExecuteRegionOp>();
}

/// Between the static code and a top-level loop or execute_region `op` that
/// kept its types: casts, an init to its iter_arg's type, a result to its
/// shape.
static void castAround(Operation *op, const Interpreter &interpreter) {
  OpBuilder b(op);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    for (auto [init, arg] :
         llvm::zip_equal(loop.getInitArgsMutable(), loop.getRegionIterArgs()))
      if (init.get().getType() != arg.getType())
        init.set(tensor::CastOp::create(b, loop.getLoc(), arg.getType(),
                                        init.get()));
  b.setInsertionPointAfter(op);
  for (Value result : op->getResults()) {
    std::optional<RankedTensorType> shaped = computedType(result, interpreter);
    if (!shaped || *shaped == result.getType())
      continue;
    auto cast = tensor::CastOp::create(b, op->getLoc(), *shaped, result);
    result.replaceAllUsesExcept(cast, cast);
  }
}

LogicalResult mlir::indexpool::specializeShapes(
    func::FuncOp func, ArrayRef<std::vector<int64_t>> shapes,
    std::string &error) {
  FailureOr<std::vector<HostTensor>> inputs =
      shapeOnlyArguments(func, shapes, error);
  if (failed(inputs))
    return failure();
  Interpreter interpreter(func, /*shapesOnly=*/true);
  if (failed(interpreter.run(*inputs))) {
    error = interpreter.error;
    return failure();
  }
  auto retype = [&](Value v) {
    if (std::optional<RankedTensorType> type = computedType(v, interpreter))
      v.setType(*type);
  };
  for (BlockArgument arg : func.getArguments())
    retype(arg);
  // A loop keeps the types it has: its values are rebound every iteration
  // (their shapes may change with it), and its results must keep the types
  // of its iter_args; an execute_region's results keep its yield's types.
  func.walk([&](Operation *op) {
    if (keepsItsTypes(op))
      return;
    for (Value result : op->getResults())
      retype(result);
  });
  func.walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::ExecuteRegionOp>(op) &&
        !op->getParentOfType<scf::ForOp>() &&
        !op->getParentOfType<scf::ExecuteRegionOp>())
      castAround(op, interpreter);
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
  if (auto paged = v.getDefiningOp<RefinePagedOp>()) {
    const HostTensor &q = interpreter.valueOf(paged.getQuery());
    return ::indexpool::runtime::refinePagedContext(
        q, interpreter.valueOf(paged.getWeights()),
        interpreter.valueOf(paged.getCandidates()),
        interpreter.valueOf(paged.getPages()),
        interpreter.valueOf(paged.getBlockTable()),
        interpreter.valueOf(paged.getLengths()),
        pageLayoutOf(paged, q.shape[3]));
  }
  if (auto refine = v.getDefiningOp<RefineOp>()) {
    SelectionContext context;
    const HostTensor *scales =
        refine.getScales() ? &interpreter.valueOf(refine.getScales()) : nullptr;
    context.candidates = interpreter.valueOf(refine.getCandidates());
    context.logits = ref::refineLogits(
        interpreter.valueOf(refine.getQuery()),
        interpreter.valueOf(refine.getWeights()), *context.candidates,
        interpreter.valueOf(refine.getKeys()), scales);
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
