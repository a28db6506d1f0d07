//===- indexpool-compile.cpp - kernels + manifest for a GPU ---------------===//
//
// indexpool-compile FILE.mlir --chip=sm_90 --emit=ptx|cubin|mlir -o DIR
//     [--function=NAME]
//
// For each public function (static shapes), runs --indexpool-to-nvvm and
// writes DIR/NAME.CHIP.ptx or .cubin plus DIR/NAME.CHIP.json, the manifest
// (docs/manifest.md) that lets a runtime outside MLIR allocate the buffers,
// launch the kernels in order and check the results against the reference:
// the host part of the compiled function must be nothing but allocations
// and kernel launches, which is what the GPU pipeline produces.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::indexpool;
namespace cl = llvm::cl;
namespace json = llvm::json;

static cl::OptionCategory category("indexpool-compile options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::Required,
                                          cl::desc("<input.mlir>"),
                                          cl::cat(category));
static cl::opt<std::string> chip("chip", cl::Required,
                                 cl::desc("Target GPU (sm_80 ... sm_120)"),
                                 cl::value_desc("sm_XX"), cl::cat(category));
static cl::opt<std::string>
    emit("emit", cl::init("ptx"),
         cl::desc("What to write next to the manifest: ptx, cubin (ptxas "
                  "from CUDA_HOME) or mlir (the compiled module, no "
                  "manifest)"),
         cl::cat(category));
static cl::opt<std::string> outputDir("o", cl::Required,
                                      cl::desc("Output folder (created)"),
                                      cl::value_desc("DIR"),
                                      cl::cat(category));
static cl::opt<std::string>
    functionName("function",
                 cl::desc("Compile only this function (default: every public "
                          "function)"),
                 cl::cat(category));
static cl::opt<int64_t> threadsPerBlock("threads-per-block", cl::init(128),
                                        cl::desc("Threads per block"),
                                        cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "indexpool-compile: error: " << message << "\n";
  return 1;
}

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

static FailureOr<json::Object> buildManifest(func::FuncOp original,
                                             ModuleOp compiled,
                                             Computes &computes,
                                             StringRef binaryPath,
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
      {"chip", chip.getValue()},
      {"function", original.getSymName().str()},
      {"binary",
       json::Object{{"path", binaryPath.str()},
                    {"format", emit == "cubin" ? "cubin" : "ptx"}}},
      {"buffers", std::move(buffers)},
      {"launches", std::move(launches)},
      {"computes", std::move(computes.ops)},
      {"values", std::move(computes.values)}};
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

static LogicalResult writeFile(StringRef path, StringRef bytes,
                               std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write " + path.str() + ": " + ec.message();
    return failure();
  }
  os << bytes;
  return success();
}

static int compileFunction(ModuleOp module, func::FuncOp func) {
  std::string name = func.getSymName().str(), error;
  for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                         func.getResultTypes()))
    if (auto shaped = dyn_cast<ShapedType>(t); !shaped || !shaped.hasStaticShape())
      return fail("@" + name + " has the type " + typeName(t) +
                  "; a manifest needs static shapes");
  Computes computes;
  if (failed(describeComputes(func, computes, error)))
    return fail(error);

  FailureOr<GPUPipelineOptions> options = gpuPipelineOptionsFor(chip, error);
  if (failed(options))
    return fail(error);
  options->format = emit == "cubin" ? "bin" : "isa";
  options->threadsPerBlock = threadsPerBlock;
  if (const char *cuda = std::getenv("CUDA_HOME"))
    options->cudaToolkit = cuda;

  OwningOpRef<ModuleOp> compiled = module.clone();
  PassManager pm(module.getContext());
  // Only this function and what it calls.
  pm.addPass(createSymbolPrivatizePass({name}));
  pm.addPass(createSymbolDCEPass());
  buildIndexPoolToNVVMPipeline(pm, *options);
  if (failed(pm.run(*compiled)))
    return fail("compiling @" + name + " for " + chip +
                " failed (see the diagnostics above)");

  std::string stem = name + "." + chip;
  SmallString<256> path(outputDir);
  if (emit == "mlir") {
    llvm::sys::path::append(path, stem + ".mlir");
    std::string text;
    llvm::raw_string_ostream os(text);
    compiled->print(os);
    return failed(writeFile(path, text, error)) ? fail(error) : 0;
  }

  auto binaries = llvm::to_vector(compiled->getOps<gpu::BinaryOp>());
  if (binaries.size() != 1)
    return fail("@" + name + " compiled to " +
                std::to_string(binaries.size()) + " GPU binaries, expected 1");
  auto object = cast<gpu::ObjectAttr>(binaries[0].getObjects()[0]);
  std::string binaryName = stem + (emit == "cubin" ? ".cubin" : ".ptx");
  llvm::sys::path::append(path, binaryName);
  if (failed(writeFile(path, object.getObject().getValue(), error)))
    return fail(error);

  FailureOr<json::Object> manifest =
      buildManifest(func, *compiled, computes, binaryName, error);
  if (failed(manifest))
    return fail(error);
  SmallString<256> manifestPath(outputDir);
  llvm::sys::path::append(manifestPath, stem + ".json");
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", json::Value(std::move(*manifest))) << "\n";
  if (failed(writeFile(manifestPath, text, error)))
    return fail(error);
  llvm::outs() << "wrote " << path << " and " << manifestPath << "\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "indexpool-compile: GPU kernels and a JSON manifest for a runtime "
      "outside MLIR\n");
  if (emit != "ptx" && emit != "cubin" && emit != "mlir")
    return fail("--emit must be ptx, cubin or mlir, got '" + emit + "'");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registry.insert<IndexPoolDialect>();
  MLIRContext context(registry);

  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file)
    return fail(error);
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sources, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (!module)
    return 1;
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return fail("cannot create " + outputDir + ": " + ec.message());

  SmallVector<func::FuncOp> functions;
  for (auto func : module->getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal() &&
        (functionName.empty() || func.getSymName() == functionName))
      functions.push_back(func);
  if (functions.empty())
    return fail(functionName.empty()
                    ? "no public function in " + inputFilename
                    : "no function @" + functionName + " in " + inputFilename);
  for (func::FuncOp func : functions)
    if (int rc = compileFunction(*module, func))
      return rc;
  return 0;
}
