//===- KernelManifest.cpp - compile for the GPU and describe it -----------===//
//
// One function compiled with --indexpool-to-nvvm, its binary taken out of the
// gpu.binary, and the manifest (docs/manifest.md) that lets a runtime outside
// MLIR run it: the host part of the compiled function must be nothing but
// allocations, views and kernel launches, which is what the pipeline leaves.
// Used by indexpool-compile and by indexpool-run --device=cuda.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Vocabulary/PageLayout.h"
#include "indexpool/Conversion/KernelManifest.h"
#include "indexpool/Dialect/IndexPoolAttrs.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Transforms/Passes.h"

#include "GPU/DeviceSmCount.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <limits>

using namespace mlir;
using namespace mlir::indexpool;
namespace json = llvm::json;
namespace runtime = ::indexpool::runtime;
namespace target = ::indexpool::target;

static std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// A value's shape in `values`: a dynamic size is null, i.e. whatever its
/// compute gives for the operands' shapes at run time.
static json::Array shapeOf(ShapedType t) {
  json::Array shape;
  for (int64_t d : t.getShape())
    if (ShapedType::isDynamic(d))
      shape.push_back(nullptr);
    else
      shape.push_back(d);
  return shape;
}

//===----------------------------------------------------------------------===//
// What the function computes (for the runtime's reference check)
//===----------------------------------------------------------------------===//

namespace {
/// Ids of the original function's values: arguments 0..n-1, then every op
/// result in order. The manifest's input and output buffers reuse them.
struct Computes {
  DenseMap<Value, int64_t> ids;
  json::Array ops;
  json::Array values; // type and shape of every id
  int64_t next = 0;

  int64_t define(Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    values.push_back(json::Object{{"id", next},
                                  {"type", typeName(type.getElementType())},
                                  {"shape", shapeOf(type)}});
    ids[v] = next;
    return next++;
  }
};
} // namespace

/// The named operands and the properties of one op, as its contract
/// (Dialect/OpContract.h) names them; absent optional operands are left out,
/// properties are written with their defaults.
static std::pair<json::Object, json::Object> describe(Operation *op,
                                                      Computes &c) {
  json::Object operands, props;
  const OpContract &contract = getOpContract(op);
  for (auto [operand, value] :
       llvm::zip_equal(contract.operands, getContractOperands(op)))
    if (value)
      operands[operand.name] = c.ids.lookup(value);
  for (const PropertyContract &property : contract.properties) {
    // Defaulted properties are set on every op (ODS's default values).
    Attribute attr = op->getInherentAttr(property.name).value_or(Attribute());
    switch (property.kind) {
    case PropertyKind::I64:
      props[property.name] = cast<IntegerAttr>(attr).getInt();
      break;
    case PropertyKind::F32:
      props[property.name] = cast<FloatAttr>(attr).getValueAsDouble();
      break;
    case PropertyKind::Unit:
      props[property.name] = bool(attr);
      break;
    case PropertyKind::Type: // e.g. the paged ops' `codes`: FP8 by default
      props[property.name] =
          attr ? typeName(cast<TypeAttr>(attr).getValue())
               : ::indexpool::elementTypeName(
                     ::indexpool::vocab::PageLayout().codes);
      break;
    }
  }
  return {std::move(operands), std::move(props)};
}

static LogicalResult describeComputes(func::FuncOp func, Computes &c,
                                      std::string &error) {
  for (BlockArgument arg : func.getArguments())
    c.define(arg);
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      break;
    if (op.getDialect()->getNamespace() != "indexpool") {
      error = "@" + func.getSymName().str() + " holds '" +
              op.getName().getStringRef().str() +
              "': a manifest describes functions made of indexpool ops only";
      return failure();
    }
    auto [operands, props] = describe(&op, c);
    json::Array results;
    for (Value r : op.getResults())
      results.push_back(c.define(r));
    json::Object entry{{"op", op.getName().stripDialect().str()},
                       {"operands", std::move(operands)},
                       {"results", std::move(results)}};
    if (!props.empty())
      entry["properties"] = std::move(props);
    c.ops.push_back(std::move(entry));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The manifest of the compiled host function
//===----------------------------------------------------------------------===//

/// The manifest's kind of a kernel parameter of type `t` ("buffer", "i32",
/// "i64", "f32"; runtime::paramKindName), or nullopt for a type the runtime
/// cannot pass. Index is 64-bit in NVPTX kernels.
static std::optional<StringRef> paramKind(Type t) {
  if (isa<MemRefType>(t))
    return StringRef("buffer");
  if (t.isIndex() || t.isInteger(64))
    return StringRef("i64");
  if (t.isInteger(32))
    return StringRef("i32");
  if (t.isF32())
    return StringRef("f32");
  return std::nullopt;
}

/// The constant behind `v` as a parameter of `kind` ({"i32": 4}), or nullopt
/// when `v` is not a constant.
static std::optional<json::Object> constantParam(Value v, StringRef kind) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto i = dyn_cast<IntegerAttr>(attr); i && kind != "f32")
    return json::Object{{kind, i.getValue().getSExtValue()}};
  if (auto f = dyn_cast<FloatAttr>(attr); f && kind == "f32")
    return json::Object{{"f32", f.getValueAsDouble()}};
  return std::nullopt;
}

/// The bytes a buffer of `type` (static shape) holds, or nullopt when it
/// has more elements than a manifest buffer may (runtime::
/// kMaxBufferElements), which the reader would reject.
static std::optional<int64_t> bufferBytes(MemRefType type) {
  int64_t elements = 1;
  for (int64_t d : type.getShape())
    if (d < 0 || (d != 0 && elements > runtime::kMaxBufferElements / d))
      return std::nullopt;
    else
      elements *= d;
  // Index (and anything else without a bit width) as 8 bytes: the runtime
  // rejects such element types itself; this only must not assert.
  Type element = type.getElementType();
  int64_t elementBytes =
      element.isIntOrFloat() ? (element.getIntOrFloatBitWidth() + 7) / 8 : 8;
  return elements * elementBytes;
}

namespace {
/// The manifest's `sizes` (docs/manifest.md): the host code's index values
/// as formulas of the inputs' dimensions and the device's SM count, so that
/// one binary and one manifest serve every size. A size operand is an
/// integer or {"size": i}.
struct SizeTable {
  json::Array entries;
  /// Host values already translated: their operand in `operands`.
  DenseMap<Value, size_t> known;
  std::vector<json::Value> operands;
  /// (argument, dimension) -> its `dim` entry.
  DenseMap<std::pair<unsigned, int64_t>, int64_t> inputDims;
  llvm::StringMap<int64_t> entryIndex;
  std::string error;

  static json::Value ref(int64_t i) { return json::Object{{"size", i}}; }

  /// Entry `entry`, written once however often the host computes it.
  json::Value add(json::Object entry) {
    std::string key;
    llvm::raw_string_ostream(key) << json::Value(json::Object(entry));
    auto [it, fresh] = entryIndex.try_emplace(key, int64_t(entries.size()));
    if (fresh)
      entries.push_back(std::move(entry));
    return ref(it->second);
  }

  /// One `dim` entry per dynamic dimension of every argument, in order.
  void addInputs(func::FuncOp host) {
    for (BlockArgument arg : host.getArguments()) {
      auto type = cast<MemRefType>(arg.getType());
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d)) {
          inputDims[{arg.getArgNumber(), d}] = int64_t(entries.size());
          add(json::Object{{"op", "dim"},
                           {"buffer", int64_t(arg.getArgNumber())},
                           {"dim", d}});
        }
    }
  }

  json::Value inputDim(unsigned arg, int64_t d) {
    return ref(inputDims.lookup({arg, d}));
  }

  json::Value binary(StringRef op, json::Value a, json::Value b) {
    return add(json::Object{{"op", op},
                            {"args", json::Array{std::move(a), std::move(b)}}});
  }

  /// `a` x `b`, folded when both are integers that multiply exactly.
  json::Value mul(json::Value a, json::Value b) {
    std::optional<int64_t> x = a.getAsInteger(), y = b.getAsInteger();
    if (x && *x == 1)
      return b;
    if (y && *y == 1)
      return a;
    int64_t product;
    if (x && y && !llvm::MulOverflow(*x, *y, product))
      return product;
    return binary("mul", std::move(a), std::move(b));
  }

  /// The size operand of host index value `v`, or failure with `error` set.
  FailureOr<json::Value> operand(Value v) {
    APInt constant;
    if (matchPattern(v, m_ConstantInt(&constant)))
      return json::Value(constant.getSExtValue());
    if (auto it = known.find(v); it != known.end())
      return operands[it->second];
    FailureOr<json::Value> result = compute(v);
    if (succeeded(result)) {
      known[v] = operands.size();
      operands.push_back(*result);
    }
    return result;
  }

private:
  FailureOr<json::Value> fail(Operation *op) {
    error = "a size computed by '" +
            (op ? op->getName().getStringRef().str()
                : std::string("a block argument")) +
            "', which a manifest cannot express";
    return failure();
  }

  /// Size `d` of `memref`, traced through the views and allocations the
  /// host part makes of the inputs (a row view collapses a batch's leading
  /// dimensions: its size is their product).
  FailureOr<json::Value> dimOf(Value memref, int64_t d, Operation *user) {
    auto type = dyn_cast<MemRefType>(memref.getType());
    if (!type || d < 0 || d >= type.getRank())
      return fail(user);
    if (!type.isDynamicDim(d))
      return json::Value(type.getDimSize(d));
    if (auto arg = dyn_cast<BlockArgument>(memref)) {
      if (!inputDims.count({arg.getArgNumber(), d}))
        return fail(user);
      return inputDim(arg.getArgNumber(), d);
    }
    Operation *source = memref.getDefiningOp();
    if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(source)) {
      json::Value product = int64_t(1);
      SmallVector<ReassociationIndices> groups =
          collapse.getReassociationIndices();
      for (int64_t i : groups[size_t(d)]) {
        FailureOr<json::Value> size = dimOf(collapse.getSrc(), i, user);
        if (failed(size))
          return failure();
        product = mul(std::move(product), std::move(*size));
      }
      return product;
    }
    if (auto cast = dyn_cast_or_null<memref::CastOp>(source))
      return dimOf(cast.getSource(), d, user);
    if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(source)) {
      OpFoldResult size = expand.getMixedOutputShape()[size_t(d)];
      if (auto value = dyn_cast<Value>(size))
        return operand(value);
      return fail(user);
    }
    if (isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(source)) {
      // The dynamic sizes are the operands, in dimension order.
      return operand(source->getOperand(unsigned(type.getDynamicDimIndex(d))));
    }
    return fail(user);
  }

  FailureOr<json::Value> compute(Value v) {
    Operation *op = v.getDefiningOp();
    if (!op)
      return fail(nullptr);
    if (isDeviceSmCount(op)) {
      return add(json::Object{{"op", "sm_count"}});
    }
    if (auto dim = dyn_cast<memref::DimOp>(op)) {
      std::optional<int64_t> d = dim.getConstantIndex();
      if (!d)
        return fail(op);
      return dimOf(dim.getSource(), *d, op);
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
      return operand(op->getOperand(0));
    // Sizes are never negative (the runtime checks every one), so the
    // signed forms are the unsigned ones.
    StringRef name =
        llvm::TypeSwitch<Operation *, StringRef>(op)
            .Case<arith::AddIOp>([](auto) { return "add"; })
            .Case<arith::SubIOp>([](auto) { return "sub"; })
            .Case<arith::MulIOp>([](auto) { return "mul"; })
            .Case<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(
                [](auto) { return "divu"; })
            .Case<arith::CeilDivUIOp, arith::CeilDivSIOp>(
                [](auto) { return "ceildivu"; })
            .Case<arith::RemUIOp, arith::RemSIOp>([](auto) { return "remu"; })
            .Case<arith::MinUIOp, arith::MinSIOp>([](auto) { return "minu"; })
            .Case<arith::MaxUIOp, arith::MaxSIOp>([](auto) { return "maxu"; })
            .Default([](auto) { return StringRef(); });
    if (name.empty())
      return fail(op);
    FailureOr<json::Value> a = operand(op->getOperand(0));
    if (failed(a))
      return failure();
    FailureOr<json::Value> b = operand(op->getOperand(1));
    if (failed(b))
      return failure();
    return binary(name, std::move(*a), std::move(*b));
  }
};
} // namespace

static std::optional<int64_t> constantInt(Value v) {
  APInt value;
  if (!matchPattern(v, m_ConstantInt(&value)))
    return std::nullopt;
  return value.getSExtValue();
}

/// The bytes of one element of `type` (index and other types without a bit
/// width as 8: the runtime rejects such element types itself; this only
/// must not assert).
static int64_t elementBytesOf(MemRefType type) {
  Type element = type.getElementType();
  return element.isIntOrFloat() ? (element.getIntOrFloatBitWidth() + 7) / 8
                                : 8;
}

namespace {
/// The manifest's buffers, kernels and launches, gathered op by op from
/// the compiled host part of `original` (`host`); `error` says why not.
struct HostManifest {
  HostManifest(func::FuncOp original, func::FuncOp host, Computes &computes,
               std::string &error)
      : original(original), host(host), computes(computes), error(error) {
    sizes.addInputs(host);
  }

  func::FuncOp original, host;
  Computes &computes;
  std::string &error;
  SizeTable sizes;

  // Buffers: arguments keep the ids of the original arguments, returned
  // allocations the ids of the values the original returns, other
  // allocations fresh ids. Each with its shape as size operands.
  DenseMap<Value, int64_t> buffer;
  DenseMap<int64_t, json::Array> shapes;
  DenseMap<int64_t, MemRefType> types;
  json::Array buffers;
  func::ReturnOp originalReturn;
  DenseMap<Value, unsigned> returned;
  // Results written in place of an argument (the paged ops' pages and
  // tails): result number -> argument number.
  SmallVector<std::pair<unsigned, unsigned>> inPlace;
  int64_t nextId = 0;
  json::Array launches;
  // Each launched kernel's parameter signature, from the launch's operand
  // types: the gpu dialect verified them against the gpu.func's arguments
  // (gpu.launch_func's verifier) before the kernels became a binary.
  json::Array kernels;
  llvm::StringMap<json::Array> signatures;
  // The bytes a kernel may reach through a pointer parameter: its memref's
  // static size, or the whole buffer for the 1-element views that stand
  // for buffers of dynamic size (--indexpool-kernel-size-params).
  DenseMap<Value, size_t> reach;
  std::vector<json::Value> reachBytes;

  /// Fails with the message for an op the manifest cannot hold.
  LogicalResult unsupported(Operation *op, StringRef why);
  /// The size operand of host value `v`, which `op` uses.
  FailureOr<json::Value> sizeOf(Operation *op, Value v);
  /// Fails for a buffer the reader would reject as too large.
  LogicalResult tooLarge(MemRefType type);
  /// Which host results are returned allocations and which are written in
  /// place of an argument (`returned`, `inPlace`).
  LogicalResult findResults();
  /// The inputs' buffers, then the outputs written in place of them.
  LogicalResult addArguments();
  /// Every op of the host part: buffers, views, launches, sizes.
  LogicalResult addHostOps();
  /// An allocation's buffer (an output's or a temporary).
  LogicalResult addAllocation(memref::AllocOp alloc);
  /// A view of a buffer from its first element (the whole buffer).
  LogicalResult addBufferView(memref::ReinterpretCastOp view);
  /// A kernel launch: its kernel's signature (once) and the launch.
  LogicalResult addLaunch(gpu::LaunchFuncOp launch);
  /// The launch's grid and block sizes, within CUDA's limits.
  LogicalResult launchDims(gpu::LaunchFuncOp launch, const std::string &which,
                           json::Array &gridSizes, json::Array &blockSizes);
  /// The launch's dynamic shared memory bytes.
  FailureOr<int64_t> sharedMemoryBytes(gpu::LaunchFuncOp launch,
                                       const std::string &which);
  /// The launch's parameters and its kernel's signature.
  LogicalResult launchParams(gpu::LaunchFuncOp launch,
                             const std::string &which, json::Array &params,
                             json::Array &signature);
};
} // namespace

LogicalResult HostManifest::unsupported(Operation *op, StringRef why) {
  error = "the compiled host part of @" + original.getSymName().str() +
          " has '" + op->getName().getStringRef().str() + "' (" + why.str() +
          "): a manifest holds only allocations, views, sizes and kernel "
          "launches";
  return failure();
}

FailureOr<json::Value> HostManifest::sizeOf(Operation *op, Value v) {
  FailureOr<json::Value> size = sizes.operand(v);
  if (failed(size))
    return unsupported(op, sizes.error);
  return size;
}

// What the reader rejects is refused here, at compile time, rather than
// written into a manifest that indexpool-launch would not load (dynamic
// sizes are checked when the runtime knows them).
LogicalResult HostManifest::tooLarge(MemRefType type) {
  error = "@" + original.getSymName().str() + " has a buffer of type " +
          typeName(type) + ", more than the 2^40 elements a manifest " +
          "buffer may have";
  return failure();
}

LogicalResult HostManifest::findResults() {
  auto ret = cast<func::ReturnOp>(host.getBody().front().getTerminator());
  originalReturn =
      cast<func::ReturnOp>(original.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto arg = dyn_cast<BlockArgument>(v);
    bool computed = originalReturn.getOperand(i).getDefiningOp() != nullptr;
    if (arg && computed && !returned.count(v)) {
      inPlace.push_back({unsigned(i), arg.getArgNumber()});
      returned[v] = i;
      continue;
    }
    if (!v.getDefiningOp<memref::AllocOp>() || returned.count(v)) {
      error = "@" + original.getSymName().str() + " returns result #" +
              std::to_string(i) +
              " without computing it (an argument, or twice the same "
              "value): not expressible in a manifest";
      return failure();
    }
    returned[v] = i;
  }
  return success();
}

LogicalResult HostManifest::addArguments() {
  for (auto [i, arg] : llvm::enumerate(host.getArguments())) {
    buffer[arg] = i;
    auto type = cast<MemRefType>(arg.getType());
    if (type.hasStaticShape() && !bufferBytes(type))
      return tooLarge(type);
    json::Array shape;
    for (int64_t d = 0; d < type.getRank(); ++d)
      shape.push_back(type.isDynamicDim(d) ? sizes.inputDim(i, d)
                                           : json::Value(type.getDimSize(d)));
    shapes[i] = shape;
    types[i] = type;
    buffers.push_back(json::Object{{"id", int64_t(i)},
                                   {"role", "input"},
                                   {"index", int64_t(i)},
                                   {"type", typeName(type.getElementType())},
                                   {"shape", std::move(shape)}});
  }
  // An output written in place of an input: no memory of its own, the
  // kernels write the input's (their parameters name the input).
  for (auto [result, arg] : inPlace) {
    int64_t id = computes.ids.lookup(originalReturn.getOperand(result));
    auto type = cast<MemRefType>(host.getArgument(arg).getType());
    buffers.push_back(json::Object{{"id", id},
                                   {"role", "output"},
                                   {"index", int64_t(result)},
                                   {"type", typeName(type.getElementType())},
                                   {"shape", json::Array(shapes[arg])},
                                   {"in_place_of",
                                    buffer.lookup(host.getArgument(arg))}});
  }
  nextId = computes.next;
  return success();
}

LogicalResult HostManifest::addHostOps() {
  for (Operation &op : host.getBody().front()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (failed(addAllocation(alloc)))
        return failure();
      continue;
    }
    if (isa<memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp>(
            op)) {
      // Same base pointer, other shape: the kernel sees the same buffer.
      auto it = buffer.find(op.getOperand(0));
      if (it == buffer.end())
        return unsupported(&op, "a view of an unknown buffer");
      buffer[op.getResult(0)] = it->second;
      continue;
    }
    if (auto view = dyn_cast<memref::ReinterpretCastOp>(op)) {
      if (failed(addBufferView(view)))
        return failure();
      continue;
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      if (failed(addLaunch(launch)))
        return failure();
      continue;
    }
    if (isa<arith::ConstantOp, memref::DeallocOp, func::ReturnOp>(op))
      continue;
    // Size computations: written as `sizes` where a buffer, a grid or a
    // parameter uses them (sizeOf), so an unused one costs nothing.
    if (isa<memref::DimOp>(op) || isDeviceSmCount(&op) ||
        isa<arith::ArithDialect>(op.getDialect()))
      continue;
    return unsupported(&op, "not a kernel launch");
  }
  return success();
}

LogicalResult HostManifest::addAllocation(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (type.hasStaticShape() && !bufferBytes(type))
    return tooLarge(type);
  json::Array shape;
  auto dynamic = alloc.getDynamicSizes().begin();
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      shape.push_back(type.getDimSize(d));
      continue;
    }
    FailureOr<json::Value> size = sizeOf(alloc, *dynamic++);
    if (failed(size))
      return failure();
    shape.push_back(std::move(*size));
  }
  json::Object entry{{"type", typeName(type.getElementType())},
                     {"shape", json::Array(shape)}};
  int64_t id;
  auto it = returned.find(alloc.getResult());
  if (it != returned.end()) {
    id = computes.ids.lookup(originalReturn.getOperand(it->second));
    entry["role"] = "output";
    entry["index"] = int64_t(it->second);
  } else {
    id = nextId++;
    entry["role"] = "temporary";
  }
  entry["id"] = id;
  buffer[alloc] = id;
  shapes[id] = std::move(shape);
  types[id] = type;
  buffers.push_back(std::move(entry));
  return success();
}

LogicalResult HostManifest::addBufferView(memref::ReinterpretCastOp view) {
  // The pointer to a buffer's first element (a buffer of dynamic size
  // passed to a kernel): the buffer itself, all of it reachable.
  auto it = buffer.find(view.getSource());
  if (it == buffer.end() || view.getStaticOffsets().size() != 1 ||
      view.getStaticOffsets()[0] != 0)
    return unsupported(view, "a view that is not a buffer from its start");
  buffer[view] = it->second;
  json::Value bytes = elementBytesOf(types[it->second]);
  for (const json::Value &size : shapes[it->second])
    bytes = sizes.mul(std::move(bytes), size);
  reach[view] = reachBytes.size();
  reachBytes.push_back(std::move(bytes));
  return success();
}

LogicalResult HostManifest::addLaunch(gpu::LaunchFuncOp launch) {
  std::string kernelName = launch.getKernelName().getValue().str();
  std::string which = "@" + original.getSymName().str() + ": kernel '" +
                      kernelName + "'";
  json::Array gridSizes, blockSizes;
  if (failed(launchDims(launch, which, gridSizes, blockSizes)))
    return failure();
  FailureOr<int64_t> shared = sharedMemoryBytes(launch, which);
  if (failed(shared))
    return failure();
  json::Array params, signature;
  if (failed(launchParams(launch, which, params, signature)))
    return failure();
  auto [known_, inserted] = signatures.try_emplace(kernelName, signature);
  if (inserted) {
    kernels.push_back(json::Object{{"name", kernelName},
                                   {"params", std::move(signature)}});
  } else if (known_->second != signature) {
    error = which + " is launched with two different signatures";
    return failure();
  }
  launches.push_back(json::Object{
      {"kernel", kernelName},
      {"grid", std::move(gridSizes)},
      {"block", std::move(blockSizes)},
      {"shared_memory_bytes", *shared},
      {"params", std::move(params)}});
  return success();
}

LogicalResult HostManifest::launchDims(gpu::LaunchFuncOp launch,
                                       const std::string &which,
                                       json::Array &gridSizes,
                                       json::Array &blockSizes) {
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  // Static sizes, for the checks below (-1: known at run time).
  std::array<int64_t, 6> known;
  std::array<Value, 6> dims = {grid.x,  grid.y,  grid.z,
                               block.x, block.y, block.z};
  for (auto [i, v] : llvm::enumerate(dims)) {
    if (i >= 3) {
      std::optional<int64_t> size = constantInt(v);
      if (!size)
        return unsupported(launch, "a block size computed at run time");
      known[i] = *size;
      blockSizes.push_back(*size);
      continue;
    }
    FailureOr<json::Value> size = sizeOf(launch, v);
    if (failed(size))
      return failure();
    known[i] = size->getAsInteger().value_or(-1);
    gridSizes.push_back(std::move(*size));
  }
  // CUDA's limits (Target/Chips.h), as the reader checks them; a grid
  // computed at run time is checked by the runtime.
  using target::kMaxBlockDims, target::kMaxGridDims,
      target::kMaxThreadsPerBlock;
  auto range = [](int64_t max) {
    return "[1, " + std::to_string(max) + "]";
  };
  auto gridText = [&](int i) {
    return known[i] < 0 ? std::string("?") : std::to_string(known[i]);
  };
  for (int i = 0; i < 3; ++i) {
    if (known[i] >= 0 && (known[i] < 1 || known[i] > kMaxGridDims[i])) {
      error = which + " would launch a grid of [" + gridText(0) + ", " +
              gridText(1) + ", " + gridText(2) +
              "] blocks; CUDA allows x in " + range(kMaxGridDims[0]) +
              ", y in " + range(kMaxGridDims[1]) + " and z in " +
              range(kMaxGridDims[2]);
      return failure();
    }
    // Each block size is checked before the product (which fits then).
    if (known[3 + i] < 1 || known[3 + i] > kMaxBlockDims[i] ||
        (i == 2 &&
         known[3] * known[4] * known[5] > kMaxThreadsPerBlock)) {
      error = which + " would launch blocks of [" +
              std::to_string(known[3]) + ", " + std::to_string(known[4]) +
              ", " + std::to_string(known[5]) +
              "] threads; CUDA allows x in " + range(kMaxBlockDims[0]) +
              ", y in " + range(kMaxBlockDims[1]) + ", z in " +
              range(kMaxBlockDims[2]) + " and at most " +
              std::to_string(kMaxThreadsPerBlock) + " threads per block";
      return failure();
    }
  }
  return success();
}

FailureOr<int64_t>
HostManifest::sharedMemoryBytes(gpu::LaunchFuncOp launch,
                                const std::string &which) {
  int64_t shared = 0;
  if (Value dyn = launch.getDynamicSharedMemorySize()) {
    std::optional<int64_t> bytes = constantInt(dyn);
    if (!bytes)
      return unsupported(launch, "shared memory size computed at run time");
    shared = *bytes;
    if (shared < 0 || shared > std::numeric_limits<int32_t>::max()) {
      error = which + " would launch with " + std::to_string(shared) +
              " bytes of dynamic shared memory";
      return failure();
    }
  }
  return shared;
}

LogicalResult HostManifest::launchParams(gpu::LaunchFuncOp launch,
                                         const std::string &which,
                                         json::Array &params,
                                         json::Array &signature) {
  // --indexpool-record-param-alignment's findings, one per parameter.
  ArrayRef<int64_t> alignments;
  if (auto attr = launch->getAttrOfType<DenseI64ArrayAttr>(
          "indexpool.param_alignment"))
    alignments = attr.asArrayRef();
  for (Value arg : launch.getKernelOperands()) {
    std::optional<StringRef> kind = paramKind(arg.getType());
    if (!kind) {
      error = which + " takes a parameter of type " +
              typeName(arg.getType()) +
              ", which a manifest cannot pass (buffer, i32, i64 or f32)";
      return failure();
    }
    json::Object entry{{"kind", *kind}};
    if (auto it = reach.find(arg); it != reach.end())
      entry["bytes"] = reachBytes[it->second];
    else if (auto memref = dyn_cast<MemRefType>(arg.getType());
             memref && memref.hasStaticShape())
      if (std::optional<int64_t> bytes = bufferBytes(memref))
        entry["bytes"] = *bytes;
    if (size_t i = signature.size();
        *kind == "buffer" && i < alignments.size() && alignments[i] > 1)
      entry["align"] = alignments[i];
    signature.push_back(std::move(entry));
    if (auto it = buffer.find(arg); it != buffer.end()) {
      params.push_back(json::Object{{"buffer", it->second}});
      continue;
    }
    if (*kind == "buffer")
      return unsupported(launch, "a kernel's buffer that is not a buffer "
                                 "of the function");
    if (std::optional<json::Object> constant = constantParam(arg, *kind)) {
      params.push_back(std::move(*constant));
      continue;
    }
    if (*kind == "f32")
      return unsupported(launch, "an f32 kernel parameter computed at run "
                                 "time");
    // A size (the kernel's sizes are parameters).
    FailureOr<json::Value> size = sizeOf(launch, arg);
    if (failed(size))
      return failure();
    params.push_back(json::Object{{*kind, std::move(*size)}});
  }
  return success();
}

static FailureOr<json::Object>
buildManifest(func::FuncOp original, ModuleOp compiled, Computes &computes,
              const GPUPipelineOptions &options, StringRef binaryPath,
              std::string &error) {
  auto host = compiled.lookupSymbol<func::FuncOp>(original.getSymName());
  HostManifest parts(original, host, computes, error);
  if (failed(parts.findResults()) || failed(parts.addArguments()) ||
      failed(parts.addHostOps()))
    return failure();

  json::Object manifest{
      {"format_version", runtime::kManifestFormatVersion},
      {"chip", options.chip},
      {"function", original.getSymName().str()},
      {"binary",
       json::Object{{"path", binaryPath.str()},
                    {"format", options.format == "bin" ? "cubin" : "ptx"}}}};
  if (!parts.sizes.entries.empty())
    manifest["sizes"] = std::move(parts.sizes.entries);
  manifest["buffers"] = std::move(parts.buffers);
  manifest["kernels"] = std::move(parts.kernels);
  manifest["launches"] = std::move(parts.launches);
  manifest["computes"] = std::move(computes.ops);
  manifest["values"] = std::move(computes.values);
  return manifest;
}

FailureOr<GPUCompilation>
mlir::indexpool::compileForGPU(ModuleOp module, func::FuncOp func,
                               const GPUPipelineOptions &options,
                               StringRef binaryPath, std::string &error) {
  std::string name = func.getSymName().str();
  for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                         func.getResultTypes()))
    if (auto shaped = dyn_cast<RankedTensorType>(t); !shaped) {
      error = "@" + name + " has the type " + typeName(t) +
              "; a manifest needs ranked tensors";
      return failure();
    }
  Computes computes;
  if (failed(describeComputes(func, computes, error)))
    return failure();

  GPUCompilation result;
  result.module = module.clone();
  // Only this function and what it calls, fused (the manifest's computes
  // above describe the function as written: the reference run computes
  // the same values either way).
  PassManager prepare(module.getContext());
  prepare.addPass(createSymbolPrivatizePass({name}));
  prepare.addPass(createSymbolDCEPass());
  if (options.fuse)
    prepare.addNestedPass<func::FuncOp>(createIndexPoolFuse());
  if (failed(prepare.run(*result.module))) {
    error = "preparing @" + name + " for " + options.chip +
            " failed (see the diagnostics)";
    return failure();
  }
  auto compiled = result.module->lookupSymbol<func::FuncOp>(name);
  PassManager pm(module.getContext());
  // The chip's launch configuration: from the tuning database when one is
  // given, else from the cost model unless the ops already carry one
  // (--indexpool-configure run before, or written by hand).
  if (!options.tuningDb.empty() ||
      (!hasLaunchConfiguration(compiled) && options.configureUnconfigured)) {
    IndexPoolConfigureOptions configure;
    configure.chip = options.chip;
    configure.tuningDb = options.tuningDb;
    pm.addPass(createIndexPoolConfigure(configure));
  }
  buildIndexPoolToNVVMPipeline(pm, options);
  if (failed(pm.run(*result.module))) {
    error = "compiling @" + name + " for " + options.chip +
            " failed (see the diagnostics)";
    return failure();
  }

  auto binaries = llvm::to_vector(result.module->getOps<gpu::BinaryOp>());
  if (binaries.size() != 1) {
    error = "@" + name + " compiled to " + std::to_string(binaries.size()) +
            " GPU binaries, expected 1";
    return failure();
  }
  auto object = cast<gpu::ObjectAttr>(binaries[0].getObjects()[0]);
  result.binary = object.getObject().getValue().str();

  FailureOr<json::Object> manifest = buildManifest(
      func, *result.module, computes, options, binaryPath, error);
  if (failed(manifest))
    return failure();
  result.manifest = std::move(*manifest);
  return result;
}
