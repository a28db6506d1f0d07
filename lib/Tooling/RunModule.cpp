//===- RunModule.cpp - compile one function and run it --------------------===//
//
// --device=gpu-emulator runs the GPU kernels of --chip (the IR of
// --indexpool-to-gpu-kernels, before NVVM) on CPU threads, one OpenMP thread
// per GPU thread (--indexpool-emulate-gpu-kernels): how the kernels are
// verified on a machine without a GPU. --device=cuda compiles for --chip
// and runs through the MLIR-free CUDA runtime, as indexpool-launch runs
// indexpool-compile's output.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Tooling/RunModule.h"

#include "indexpool/Conversion/KernelManifest.h"
#include "indexpool/Conversion/Passes.h"
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Evaluator/Evaluator.h"
#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/Launcher.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/ToolSupport/Inputs.h"
#include "indexpool/ToolSupport/Report.h"
#include "indexpool/ToolSupport/ToolError.h"
#include "indexpool/Tooling/CPUJit.h"
#include "indexpool/Tooling/CpuTargetMachine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::indexpool;
using ref::HostTensor;
namespace runtime = ::indexpool::runtime;
namespace tools = ::indexpool::tools;

namespace {

std::string str(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// One run of runModule: the options and the error line they name.
class ModuleRunner {
public:
  explicit ModuleRunner(const RunModuleOptions &options) : options(options) {}

  int run();

private:
  int fail(const std::string &message) {
    // Diagnostics or IR printed through LLVM's streams stay above it.
    llvm::outs().flush();
    return tools::toolError(options.toolName, message);
  }

  FailureOr<std::vector<HostTensor>> makeRandomInputs(func::FuncOp func,
                                                      std::string &error);
  FailureOr<std::vector<HostTensor>> loadInputs(func::FuncOp func,
                                                std::string &error);
  int report(func::FuncOp func, const std::vector<HostTensor> &inputs,
             const std::vector<HostTensor> &results,
             std::function<bool(std::vector<double> &, std::string &)>
                 timeRuns);
  int runOnCuda(ModuleOp module, func::FuncOp func,
                const std::vector<HostTensor> &inputs);

  const RunModuleOptions &options;
};

/// What an --input must be for an argument of type `type`.
tools::InputType inputType(RankedTensorType type) {
  // ShapedType::kDynamic is Shapes.h's kShapeDynamic, Inputs.h's marker.
  return {*toElementType(type.getElementType()),
          std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
          str(type)};
}

FailureOr<std::vector<HostTensor>>
ModuleRunner::makeRandomInputs(func::FuncOp func, std::string &error) {
  unsigned numArgs = func.getNumArguments();
  std::map<unsigned, std::vector<int64_t>> given;
  for (const std::string &text : options.inputShapes)
    if (failed(parseInputShape(text, numArgs, given, error)))
      return failure();
  std::vector<std::vector<int64_t>> shapes;
  for (auto [i, argType] : llvm::enumerate(func.getArgumentTypes())) {
    auto type = cast<RankedTensorType>(argType);
    std::vector<int64_t> shape;
    if (auto it = given.find(unsigned(i)); it != given.end()) {
      shape = it->second;
      if (!tools::fitsInputType(shape, inputType(type))) {
        error = "--input-shape: " + ref::shapeString(shape) +
                " does not fit argument #" + std::to_string(i) + " of type " +
                str(type);
        return failure();
      }
    } else {
      for (int64_t size : type.getShape())
        shape.push_back(ShapedType::isDynamic(size) ? 256 : size);
    }
    if (!tools::fitsHostLimit(shape)) {
      error = "argument #" + std::to_string(i) + ": " +
              ref::shapeString(shape) + " is too large (" +
              tools::hostElementLimit() + ")";
      return failure();
    }
    shapes.push_back(std::move(shape));
  }
  return generateRandomInputs(func, shapes, *options.randomSeed, error);
}

FailureOr<std::vector<HostTensor>>
ModuleRunner::loadInputs(func::FuncOp func, std::string &error) {
  std::vector<tools::InputType> types;
  for (Type type : func.getArgumentTypes())
    types.push_back(inputType(cast<RankedTensorType>(type)));
  std::vector<HostTensor> inputs;
  if (!tools::loadInputFiles(options.inputFiles, types, "argument", inputs,
                             error))
    return failure();
  return inputs;
}

/// Writes --output files, prints the results, --verify against the float64
/// reference and --benchmark (`timeRuns` times benchmarkRuns runs): the
/// same for every device.
int ModuleRunner::report(
    func::FuncOp func, const std::vector<HostTensor> &inputs,
    const std::vector<HostTensor> &results,
    std::function<bool(std::vector<double> &, std::string &)> timeRuns) {
  // The result types with their sizes: "tensor<256x128xf32>" for a result of
  // type tensor<?x128xf32>.
  std::vector<std::string> types;
  for (auto [type, result] : llvm::zip(func.getResultTypes(), results))
    types.push_back(str(RankedTensorType::get(
        result.shape, cast<RankedTensorType>(type).getElementType())));
  tools::ReportOptions report;
  report.tool = options.toolName;
  report.outputFiles = options.outputFiles;
  report.verify = options.verify;
  report.benchmarkRuns = options.benchmarkRuns;
  report.compare = [&](std::vector<runtime::Comparison> &comparisons,
                       std::string &error) {
    FailureOr<ReferenceRun> reference = evaluateReference(func, inputs, error);
    if (failed(reference))
      return false;
    for (size_t i = 0; i < results.size(); ++i) {
      const std::optional<SelectionContext> &selection =
          reference->selections[i];
      const std::optional<ref::PageLayout> &pages = reference->pageLayouts[i];
      comparisons.push_back(
          pages ? runtime::comparePages(results[i], reference->results[i],
                                        *pages)
                : compareWithReference(results[i], reference->results[i],
                                       selection ? &*selection : nullptr));
    }
    return true;
  };
  report.timeRuns = std::move(timeRuns);
  report.benchmarkBytes =
      tools::tensorBytes(inputs) + tools::tensorBytes(results);
  return tools::reportResults(report, results, types);
}

/// --device=cuda: the function compiled for --chip (PTX, JIT-compiled by the
/// driver for the device), described by a manifest and run by the MLIR-free
/// CUDA runtime, as indexpool-launch would run indexpool-compile's output.
int ModuleRunner::runOnCuda(ModuleOp module, func::FuncOp func,
                            const std::vector<HostTensor> &inputs) {
  std::string error;
  // Without a driver there is nothing to compile for: say so first.
  std::unique_ptr<runtime::CudaDevice> device =
      runtime::CudaDevice::open(error);
  if (!device)
    return fail(error);
  FailureOr<GPUPipelineOptions> gpuOptions =
      gpuPipelineOptionsFor(options.chip, error);
  if (failed(gpuOptions))
    return fail(error);
  gpuOptions->format = "isa";
  gpuOptions->fuse = options.fuse;
  gpuOptions->tensorCores = options.tensorCores.value_or(true);
  if (const char *cuda = std::getenv("CUDA_HOME"))
    gpuOptions->cudaToolkit = cuda;
  std::string binaryName =
      func.getSymName().str() + "." + options.chip + ".ptx";
  // Kernels take static shapes: a dynamic function is compiled for the
  // shapes of these inputs.
  OwningOpRef<ModuleOp> specialized = module.clone();
  auto target = specialized->lookupSymbol<func::FuncOp>(func.getSymName());
  std::vector<std::vector<int64_t>> shapes;
  for (const HostTensor &input : inputs)
    shapes.push_back(input.shape);
  if (failed(specializeShapes(target, shapes, error)))
    return fail(error);
  FailureOr<GPUCompilation> compiled =
      compileForGPU(*specialized, target, *gpuOptions, binaryName, error);
  if (failed(compiled))
    return fail(error);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(compiled->manifest));
  runtime::Manifest symbolic, manifest;
  if (!runtime::parseManifest(text, binaryName, /*directory=*/".", symbolic,
                              error))
    return fail("internal error: the generated manifest: " + error);
  // Sizes known at launch (format_version 3) take the inputs' shapes.
  if (!runtime::bindSizes(symbolic, shapes,
                          device->info().multiprocessorCount, manifest, error))
    return fail(error);
  // The driver reads PTX up to its terminating NUL.
  std::string image = compiled->binary + '\0';
  std::unique_ptr<runtime::Launcher> launcher =
      runtime::Launcher::create(*device, manifest, image, error);
  std::vector<HostTensor> results;
  if (!launcher || !launcher->upload(inputs, error) || !launcher->run(error) ||
      !launcher->download(results, error))
    return fail(error);
  return report(func, inputs, results,
                [&](std::vector<double> &ms, std::string &error) {
                  return launcher->benchmark(options.benchmarkRuns, ms, error);
                });
}

int ModuleRunner::run() {
  std::string error;
  if (options.functionName.empty())
    return fail("--function=NAME is required (the func.func to run)");
  const std::string &deviceName = options.device;
  bool emulateGPU = deviceName == "gpu-emulator";
  if (deviceName != "cpu" && deviceName != "cuda" && !emulateGPU)
    return fail("unknown device '" + deviceName +
                "' (expected --device=cpu, cuda or gpu-emulator)");
  bool random = options.randomSeed.has_value();
  if (random && !options.inputFiles.empty())
    return fail("--input and --random-inputs cannot be combined");
  if (!random && !options.inputShapes.empty())
    return fail("--input-shape only applies with --random-inputs");
  if (!options.tuningDb.empty() && deviceName != "cpu")
    return fail("--tuning-db only applies with --device=cpu");
  if (options.int8Query && deviceName != "cpu")
    return fail("--int8-query only applies with --device=cpu");
  if (options.int8Query && options.verify)
    return fail(
        "--int8-query cannot be combined with --verify: the "
        "reference is exact and the quantized query differs from it "
        "within the bound docs/design.md gives (CPU targets), not within "
        "--verify's "
        "tolerances");
  if (options.tensorCores.has_value() && deviceName == "cpu")
    return fail("--tensor-cores only applies with --device=cuda or "
                "gpu-emulator");
  if (!options.cpu.empty()) {
    if (deviceName == "cuda")
      return fail("--cpu only applies with --device=cpu or gpu-emulator");
    // Before any input is read or drawn: a target this host cannot run.
    std::string error;
    if (!resolveCpuTarget(options.cpu, /*toRun=*/true, error))
      return fail(error);
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<IndexPoolDialect>();
  registerCPUJitTranslations(registry);
  // --device=cuda: gpu-module-to-binary translates kernels through NVVM.
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  MLIRContext context(registry);

  // Parse and verify; diagnostics print with their locations.
  // Read with a limit: /dev/zero or an endless FIFO must not read forever.
  const std::string &inputFilename = options.inputFilename;
  std::string text;
  if (!runtime::readMlirInput(inputFilename, text, error))
    return fail(error);
  auto file = llvm::MemoryBuffer::getMemBufferCopy(
      text, runtime::inputBufferName(inputFilename));
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("cannot parse " + inputFilename);

  std::string name = tools::stripAt(options.functionName);
  auto func = module->lookupSymbol<func::FuncOp>(name);
  if (!func || func.isExternal())
    return fail("no function @" + name + " in " + inputFilename);
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !toElementType(tensor.getElementType()))
      return fail("argument #" + std::to_string(i) + " of @" + name +
                  " has type " + str(type) + ": " + options.toolName +
                  " takes ranked tensors of f32, f16, bf16, f8E4M3FN, i8, "
                  "i32 or i64");
  }
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !toElementType(tensor.getElementType()))
      return fail("result #" + std::to_string(i) + " of @" + name +
                  " has type " + str(type) + ": " + options.toolName +
                  " returns ranked tensors of f32, f16, bf16, f8E4M3FN, i8, "
                  "i32 or i64");
  }
  unsigned numArgs = func.getNumArguments();
  unsigned numResults = func.getNumResults();
  if (!options.outputFiles.empty() && options.outputFiles.size() != numResults)
    return fail("@" + name + " has " + tools::plural(numResults, "result") +
                ", got " + std::to_string(options.outputFiles.size()) +
                " --output");

  // Inputs.
  if (!random && options.inputFiles.size() != numArgs)
    return fail("@" + name + " takes " + tools::plural(numArgs, "argument") +
                ", got " + std::to_string(options.inputFiles.size()) +
                " --input (one --input=@FILE.npy per argument, or "
                "--random-inputs=SEED)");
  FailureOr<std::vector<HostTensor>> inputs =
      random ? makeRandomInputs(func, error) : loadInputs(func, error);
  if (failed(inputs))
    return fail(error);

  // Every dynamic size is checked, and the result shapes known, before any
  // compiled code runs.
  FailureOr<std::vector<HostTensor>> predicted =
      evaluateFunction(func, *inputs, error, /*shapesOnly=*/true);
  if (failed(predicted))
    return fail(error);
  for (auto [i, result] : llvm::enumerate(*predicted))
    if (!tools::fitsHostLimit(result.shape))
      return fail("result #" + std::to_string(i) + " would be " +
                  ref::shapeString(result.shape) + ", too large (" +
                  tools::hostElementLimit() + ")");

  if (deviceName == "cuda")
    return runOnCuda(*module, func, *inputs);

  CPUJitOptions jitOptions;
  jitOptions.vectorWidth = options.vectorWidth;
  jitOptions.cpu = options.cpu;
  jitOptions.int8Query = options.int8Query;
  jitOptions.tuningDb = options.tuningDb;
  jitOptions.checkBounds = options.checkBounds;
  jitOptions.fuse = options.fuse;
  jitOptions.toolName = options.toolName;
  if (emulateGPU) {
    jitOptions.emulatedGPU = options.chip;
    jitOptions.tensorCores = options.tensorCores.value_or(true);
  }
  std::unique_ptr<CPUJitFunction> compiled =
      CPUJitFunction::compile(func, jitOptions, error);
  if (!compiled)
    return fail(error);
  compiled->setInputs(*inputs);
  std::vector<HostTensor> results;
  if (failed(compiled->call(*predicted, &results, error)))
    return fail(error);
  return report(func, *inputs, results,
                [&](std::vector<double> &ms, std::string &error) {
                  for (unsigned run = 0; run < options.benchmarkRuns; ++run) {
                    auto start = std::chrono::steady_clock::now();
                    if (failed(compiled->call(*predicted, nullptr, error)))
                      return false;
                    auto stop = std::chrono::steady_clock::now();
                    ms.push_back(std::chrono::duration<double, std::milli>(
                                     stop - start)
                                     .count());
                  }
                  return true;
                });
}

} // namespace

int mlir::indexpool::runModule(const RunModuleOptions &options) {
  return ModuleRunner(options).run();
}
