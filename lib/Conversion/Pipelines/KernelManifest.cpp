//===- KernelManifest.cpp - compile for the GPU and describe it -----------===//
//
// One function compiled with --indexpool-to-nvvm, its binary taken out of the
// gpu.binary, and the manifest (docs/manifest.md) that lets a runtime outside
// MLIR run it: the host part of the compiled function must be nothing but
// allocations, views and kernel launches, which is what the pipeline leaves.
// Used by indexpool-compile and by indexpool-run --device=cuda.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/KernelManifest.h"
#include "indexpool/Dialect/IndexPoolAttrs.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::indexpool;
namespace json = llvm::json;

static std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

static json::Array shapeOf(ShapedType t) {
  json::Array shape;
  for (int64_t d : t.getShape())
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

/// The named operands and the properties of one op, as SPEC §3 names them.
static std::pair<json::Object, json::Object> describe(Operation *op,
                                                      Computes &c) {
  json::Object operands, props;
  auto add = [&](StringRef name, Value v) {
    if (v)
      operands[name] = c.ids.lookup(v);
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](PoolOp o) {
        add("keys", o.getKeys());
        add("scores", o.getScores());
        add("bias", o.getBias());
        props["pool_size"] = o.getPoolSize();
        props["temperature"] = o.getTemperature().convertToDouble();
      })
      .Case([&](HadamardOp o) { add("input", o.getInput()); })
      .Case([&](QuantizeOp o) {
        add("input", o.getInput());
        props["pow2_scale"] = o.getPow2Scale();
        props["min_absmax"] = o.getMinAbsmax().convertToDouble();
      })
      .Case([&](DequantizeOp o) {
        add("codes", o.getCodes());
        add("scales", o.getScales());
      })
      .Case([&](ResidualOp o) {
        add("keys", o.getKeys());
        add("pooled", o.getPooled());
        props["pool_size"] = o.getPoolSize();
      })
      .Case([&](ReconstructOp o) {
        add("pooled", o.getPooled());
        add("residual", o.getResidual());
        props["pool_size"] = o.getPoolSize();
      })
      .Case([&](ScoreOp o) {
        add("query", o.getQuery());
        add("weights", o.getWeights());
        add("keys", o.getKeys());
        add("scales", o.getScales());
      })
      .Case([&](TopKOp o) {
        add("logits", o.getLogits());
        add("valid", o.getValid());
        props["k"] = o.getK();
      })
      .Case([&](ExpandOp o) {
        add("indices", o.getIndices());
        props["pool_size"] = o.getPoolSize();
      })
      .Case([&](CompressOp o) {
        add("keys", o.getKeys());
        add("scores", o.getScores());
        add("bias", o.getBias());
        props["pool_size"] = o.getPoolSize();
        props["temperature"] = o.getTemperature().convertToDouble();
        props["rotate"] = o.getRotate();
        props["pow2_scale"] = o.getPow2Scale();
        props["min_absmax"] = o.getMinAbsmax().convertToDouble();
      })
      .Case([&](SelectOp o) {
        add("query", o.getQuery());
        add("weights", o.getWeights());
        add("keys", o.getKeys());
        add("scales", o.getScales());
        add("valid", o.getValid());
        props["k"] = o.getK();
        props["pool_size"] = o.getPoolSize();
      });
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

/// An integer or float constant behind `v`, for launch sizes and parameters.
static std::optional<json::Object> constantParam(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    bool narrow = i.getType().isInteger(32);
    return json::Object{{narrow ? "i32" : "i64", i.getValue().getSExtValue()}};
  }
  if (auto f = dyn_cast<FloatAttr>(attr); f && f.getType().isF32())
    return json::Object{{"f32", f.getValueAsDouble()}};
  return std::nullopt;
}

static std::optional<int64_t> constantInt(Value v) {
  APInt value;
  if (!matchPattern(v, m_ConstantInt(&value)))
    return std::nullopt;
  return value.getSExtValue();
}

static FailureOr<json::Object>
buildManifest(func::FuncOp original, ModuleOp compiled, Computes &computes,
              const GPUPipelineOptions &options, StringRef binaryPath,
              std::string &error) {
  auto host = compiled.lookupSymbol<func::FuncOp>(original.getSymName());
  auto unsupported = [&](Operation *op, StringRef why) {
    error = "the compiled host part of @" + original.getSymName().str() +
            " has '" + op->getName().getStringRef().str() + "' (" + why.str() +
            "): a manifest holds only allocations and kernel launches";
    return failure();
  };

  // Buffers: arguments keep the ids of the original arguments, returned
  // allocations the ids of the values the original returns, other
  // allocations fresh ids.
  DenseMap<Value, int64_t> buffer;
  json::Array buffers;
  auto ret = cast<func::ReturnOp>(host.getBody().front().getTerminator());
  auto originalReturn =
      cast<func::ReturnOp>(original.getBody().front().getTerminator());
  DenseMap<Value, unsigned> returned;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (!v.getDefiningOp<memref::AllocOp>() || returned.count(v)) {
      error = "@" + original.getSymName().str() + " returns result #" +
              std::to_string(i) +
              " without computing it (an argument, or twice the same "
              "value): not expressible in a manifest";
      return failure();
    }
    returned[v] = i;
  }
  for (auto [i, arg] : llvm::enumerate(host.getArguments())) {
    buffer[arg] = i;
    auto type = cast<MemRefType>(arg.getType());
    buffers.push_back(json::Object{{"id", int64_t(i)},
                                   {"role", "input"},
                                   {"index", int64_t(i)},
                                   {"type", typeName(type.getElementType())},
                                   {"shape", shapeOf(type)}});
  }
  int64_t nextId = computes.next;
  json::Array launches;
  for (Operation &op : host.getBody().front()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape())
        return unsupported(&op, "dynamic size");
      json::Object entry{{"type", typeName(type.getElementType())},
                         {"shape", shapeOf(type)}};
      auto it = returned.find(alloc.getResult());
      if (it != returned.end()) {
        int64_t id = computes.ids.lookup(originalReturn.getOperand(it->second));
        entry["id"] = id;
        entry["role"] = "output";
        entry["index"] = int64_t(it->second);
        buffer[alloc] = id;
      } else {
        entry["id"] = nextId;
        entry["role"] = "temporary";
        buffer[alloc] = nextId++;
      }
      buffers.push_back(std::move(entry));
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
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      json::Array gridSizes, blockSizes;
      for (Value v : {grid.x, grid.y, grid.z, block.x, block.y, block.z}) {
        std::optional<int64_t> size = constantInt(v);
        if (!size)
          return unsupported(&op, "launch size computed at run time");
        (gridSizes.size() < 3 ? gridSizes : blockSizes).push_back(*size);
      }
      int64_t shared = 0;
      if (Value dyn = launch.getDynamicSharedMemorySize()) {
        std::optional<int64_t> bytes = constantInt(dyn);
        if (!bytes)
          return unsupported(&op, "shared memory size computed at run time");
        shared = *bytes;
      }
      json::Array params;
      for (Value arg : launch.getKernelOperands()) {
        if (auto it = buffer.find(arg); it != buffer.end()) {
          params.push_back(json::Object{{"buffer", it->second}});
          continue;
        }
        std::optional<json::Object> constant = constantParam(arg);
        if (!constant)
          return unsupported(&op, "a kernel parameter computed at run time");
        params.push_back(std::move(*constant));
      }
      launches.push_back(json::Object{
          {"kernel", launch.getKernelName().getValue().str()},
          {"grid", std::move(gridSizes)},
          {"block", std::move(blockSizes)},
          {"shared_memory_bytes", shared},
          {"params", std::move(params)}});
      continue;
    }
    if (isa<arith::ConstantOp, memref::DeallocOp, func::ReturnOp>(op))
      continue;
    return unsupported(&op, "not a kernel launch");
  }

  return json::Object{
      {"format_version", 1},
      {"chip", options.chip},
      {"function", original.getSymName().str()},
      {"binary",
       json::Object{{"path", binaryPath.str()},
                    {"format", options.format == "bin" ? "cubin" : "ptx"}}},
      {"buffers", std::move(buffers)},
      {"launches", std::move(launches)},
      {"computes", std::move(computes.ops)},
      {"values", std::move(computes.values)}};
}

FailureOr<GPUCompilation>
mlir::indexpool::compileForGPU(ModuleOp module, func::FuncOp func,
                               const GPUPipelineOptions &options,
                               StringRef binaryPath, std::string &error) {
  std::string name = func.getSymName().str();
  for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                         func.getResultTypes()))
    if (auto shaped = dyn_cast<ShapedType>(t);
        !shaped || !shaped.hasStaticShape()) {
      error = "@" + name + " has the type " + typeName(t) +
              "; a manifest needs static shapes";
      return failure();
    }
  Computes computes;
  if (failed(describeComputes(func, computes, error)))
    return failure();

  GPUCompilation result;
  result.module = module.clone();
  PassManager pm(module.getContext());
  // Only this function and what it calls.
  pm.addPass(createSymbolPrivatizePass({name}));
  pm.addPass(createSymbolDCEPass());
  // The chip's launch configuration from the cost model, unless the
  // function's ops already carry one (--indexpool-configure with a tuning
  // database, or written by hand).
  if (!hasLaunchConfiguration(func) && options.configureUnconfigured) {
    IndexPoolConfigureOptions configure;
    configure.chip = options.chip;
    pm.addPass(createIndexPoolConfigure(configure));
  }
  buildIndexPoolToNVVMPipeline(pm, options);
  if (failed(pm.run(*result.module))) {
    error = "compiling @" + name + " for " + options.chip +
            " failed (see the diagnostics above)";
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
