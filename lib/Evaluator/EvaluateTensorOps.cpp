//===- EvaluateTensorOps.cpp - the evaluator on arith and tensor ops ------===//
//
// The ops around the indexpool ones: constants, elementwise arith on tensors,
// integer arithmetic on index scalars (sizes, offsets), tensor.empty / cast /
// dim, slices, reshapes and materialize_in_destination.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::indexpool;
using namespace mlir::indexpool::evaluator;

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

/// One element of elementwise op `op` on `a` (and `b`) in double; integer
/// ops wrap to `bits` bits.
static double applyElementwise(Operation *op, double a, double b,
                               unsigned bits) {
  return llvm::TypeSwitch<Operation *, double>(op)
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
        return wrapInteger(int64_t(uint64_t(int64_t(a)) * uint64_t(int64_t(b))),
                           bits);
      })
      .Default([](Operation *) { return 0.0; });
}

LogicalResult Interpreter::visitScalarArithmetic(Operation *op) {
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op))
    return fail(op, "only tensor operands are supported by the reference "
                    "evaluator");
  auto lhs = scalars.find(op->getOperand(0));
  auto rhs = scalars.find(op->getOperand(1));
  if (lhs == scalars.end() || rhs == scalars.end())
    return fail(op, "an operand is not a known integer");
  int64_t a = lhs->second, b = rhs->second, value;
  bool overflow = isa<arith::AddIOp>(op) ? __builtin_add_overflow(a, b, &value)
                  : isa<arith::SubIOp>(op)
                      ? __builtin_sub_overflow(a, b, &value)
                      : __builtin_mul_overflow(a, b, &value);
  if (overflow)
    return fail(op, std::to_string(a) + " and " + std::to_string(b) +
                        ": the result overflows int64");
  scalars[op->getResult(0)] = value;
  return success();
}

LogicalResult Interpreter::visitElementwise(Operation *op) {
  Value result = op->getResult(0);
  if (!isa<RankedTensorType>(result.getType()))
    return visitScalarArithmetic(op);
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
    double value =
        applyElementwise(op, lhs.data[i], rhs ? rhs->data[i] : 0.0, bits);
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
