//===- indexpool-run.cpp - compile one function and run it ----------------===//
//
// Modeled on iree-run-module:
//
//   indexpool-run FILE.mlir --function=NAME [--input=@a.npy ...]
//       [--random-inputs=SEED] [--input-shape=I:AxBxC ...]
//       [--output=@out.npy ...] [--device=cpu|cuda|gpu-emulator]
//       [--chip=sm_90] [--verify] [--benchmark=N] [--vector-width=8]
//       [--check-bounds]
//
// --device=gpu-emulator runs the GPU kernels of --chip (the IR of
// --indexpool-to-gpu-kernels, before NVVM) on CPU threads, one OpenMP thread
// per GPU thread (--indexpool-emulate-gpu-kernels): how the kernels are
// verified on a machine without a GPU.
//
// The CPU path (indexpool/Tooling/CPUJit.h): the function is lowered with
// the indexpool-to-cpu pipeline and JIT-compiled. Before anything runs, the
// float64 reference evaluator computes the result shapes, which validates
// every dynamic size.
//
// Every bad input ends with one line "indexpool-run: error: ..." and exit
// code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"
#include "indexpool/Dialect/IndexPoolAttrs.h"
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Evaluator/Evaluator.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Reference/Numerics.h"
#include "indexpool/Runtime/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "indexpool/Conversion/KernelManifest.h"
#include "indexpool/Runtime/BufferCache.h"
#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/Launcher.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/Storage.h"
#include "indexpool/Tooling/CPUJit.h"
#include "indexpool/Transforms/Passes.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::indexpool;
using ref::ElementType;
using ref::HostTensor;
namespace cl = llvm::cl;
namespace runtime = ::indexpool::runtime;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

static cl::OptionCategory category("indexpool-run options");

static cl::opt<std::string> inputFilename(cl::Positional, cl::Required,
                                          cl::desc("<input.mlir>"),
                                          cl::cat(category));

static cl::opt<std::string>
    functionName("function", cl::value_desc("NAME"),
                 cl::desc("The func.func to run (with or without the @)"),
                 cl::cat(category));

static cl::list<std::string> inputFiles(
    "input", cl::value_desc("@FILE.npy"),
    cl::desc("One .npy input per argument, in argument order. f32, f16, bf16 "
             "and f8E4M3FN arguments read float32 or float16 arrays (rounded "
             "to nearest even), i8 arguments int8 arrays, i32 arguments int32 "
             "arrays, i64 arguments int64 arrays"),
    cl::cat(category));

// Numbers are parsed here, not by cl, so that a bad value ends in the one
// error line of every other bad input.
static cl::opt<std::string> randomInputs(
    "random-inputs", cl::value_desc("SEED"),
    cl::desc("Instead of --input: draw every input at random from SEED, as "
             "the argument is used (keys, queries, scores, bias, weights: "
             "N(0,1); scales: uniform [1e-3, 1e-2]; quantized keys: valid "
             "codes; valid lengths: [0, N]; expand indices: [-1, 1000]; paged "
             "slots: distinct, one in eight -1; block tables: page ids; pages: "
             "random bytes; other integers: [0, 100]). Dynamic sizes are 256 "
             "unless --input-shape gives them"),
    cl::cat(category));

static cl::list<std::string> inputShapes(
    "input-shape", cl::value_desc("I:AxBxC"),
    cl::desc("With --random-inputs: the shape of argument I (0-based), e.g. "
             "--input-shape=0:1000x128; must fit the argument's type"),
    cl::cat(category));

static cl::list<std::string> outputFiles(
    "output", cl::value_desc("@FILE.npy"),
    cl::desc("One .npy file per result, in result order: f32, f16, bf16 and "
             "f8E4M3FN results as float32 (decoded values), i8 as int8, i32 "
             "as int32, i64 as int64"),
    cl::cat(category));

static cl::opt<std::string>
    deviceName("device", cl::init("cpu"),
               cl::value_desc("cpu|cuda|gpu-emulator"),
               cl::desc("Where to run: the CPU (JIT with OpenMP), an NVIDIA "
                        "GPU (compiled for --chip, PTX run through the CUDA "
                        "driver; static shapes), or the GPU kernels of --chip "
                        "emulated on CPU threads (tests; slow)"),
               cl::cat(category));

static cl::opt<std::string>
    chipName("chip", cl::init("sm_90"), cl::value_desc("sm_XX"),
             cl::desc("The GPU architecture for --device=cuda and "
                      "--device=gpu-emulator (ignored on the CPU)"),
             cl::cat(category));

static cl::opt<bool> verifyResults(
    "verify",
    cl::desc("Compare every result with the float64 reference evaluator on "
             "the same inputs; print one line per result with its errors "
             "and exit with 1 if any is out of tolerance (f32: normwise "
             "relative error <= 1e-5; f16/bf16: within one ulp plus one ulp "
             "of the largest magnitude; i8/f8 codes: at most 0.1% differ, "
             "each by one code or by <= 2^-8 * qmax; i32: equal, except "
             "near-tie swaps of selections of computed logits)"),
    cl::cat(category));

static cl::opt<std::string> benchmarkRuns(
    "benchmark", cl::init("0"), cl::value_desc("N"),
    cl::desc("Run the compiled function N more times after the first run; "
             "print the median time and the effective GB/s (bytes of all "
             "inputs and outputs over the median time)"),
    cl::cat(category));

static cl::opt<std::string> vectorWidthOption(
    "vector-width", cl::init("8"), cl::value_desc("LANES"),
    cl::desc("f32 lanes of the vectors the CPU loops over D use"),
    cl::cat(category));

static cl::opt<bool> fuseOps(
    "fuse", cl::init(true),
    cl::desc("Run --indexpool-fuse before compiling (default; --fuse=false "
             "compiles each op as written). The reference evaluates the "
             "function as written either way"),
    cl::cat(category));

static cl::opt<bool> checkBounds(
    "check-bounds",
    cl::desc("--device=cpu and gpu-emulator: check every memory access of "
             "the compiled code against its buffer; one outside it prints "
             "an error naming the access and its location and exits with "
             "1 (slower; the tests run with it)"),
    cl::cat(category));

/// The numbers of the command line, parsed by parseNumbers().
static uint64_t randomSeed = 0;
static unsigned benchmarkCount = 0;
static int64_t vectorWidth = 8;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static int fail(const llvm::Twine &message) {
  llvm::outs().flush();
  llvm::errs() << "indexpool-run: error: " << message << "\n";
  return 1;
}

static std::string str(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// "--input=@a.npy" and "--input=a.npy" name the same file.
static std::string stripAt(StringRef path) {
  return path.starts_with("@") ? path.drop_front().str() : path.str();
}

/// Element count of a shape, or -1 when it overflows or is negative.
static int64_t checkedElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape) {
    if (size < 0)
      return -1;
    if (size != 0 && count > std::numeric_limits<int64_t>::max() / size)
      return -1;
    count *= size;
  }
  return count;
}

/// The largest tensor indexpool-run creates (8 GiB of float64 values); the
/// .npy reader and indexpool-launch share the limit.
constexpr int64_t kMaxElements = runtime::kMaxHostElements;

/// `type` with the sizes of `shape`: "tensor<256x128xf32>" for a result of
/// type tensor<?x128xf32>.
static std::string resolvedType(RankedTensorType type,
                                ArrayRef<int64_t> shape) {
  return str(RankedTensorType::get(shape, type.getElementType()));
}

/// The NumPy name of a canonical descriptor, for messages.
static std::string dtypeName(StringRef dtype) {
  static const std::map<std::string, std::string> names = {
      {"<f2", "float16"}, {"<f4", "float32"}, {"<f8", "float64"},
      {"|i1", "int8"},    {"|u1", "uint8"},   {"<i4", "int32"},
      {"<i8", "int64"}};
  auto it = names.find(dtype.str());
  return it == names.end() ? dtype.str() : it->second;
}

/// "an int32", "a float32".
static std::string withArticle(const std::string &noun) {
  bool vowel = !noun.empty() && std::strchr("aeiou", noun[0]);
  return (vowel ? "an " : "a ") + noun;
}

/// "1 argument", "2 arguments".
static std::string plural(size_t count, const std::string &noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}


//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

static FailureOr<std::vector<HostTensor>> makeRandomInputs(func::FuncOp func,
                                                           std::string &error) {
  unsigned numArgs = func.getNumArguments();
  std::map<unsigned, std::vector<int64_t>> given;
  for (const std::string &text : inputShapes)
    if (failed(parseInputShape(text, numArgs, given, error)))
      return failure();
  std::vector<std::vector<int64_t>> shapes;
  for (auto [i, argType] : llvm::enumerate(func.getArgumentTypes())) {
    auto type = cast<RankedTensorType>(argType);
    std::vector<int64_t> shape;
    if (auto it = given.find(unsigned(i)); it != given.end()) {
      shape = it->second;
      if (!fitsType(shape, type)) {
        error = "--input-shape: " + ref::shapeString(shape) +
                " does not fit argument #" + std::to_string(i) + " of type " +
                str(type);
        return failure();
      }
    } else {
      for (int64_t size : type.getShape())
        shape.push_back(ShapedType::isDynamic(size) ? 256 : size);
    }
    int64_t elements = checkedElements(shape);
    if (elements < 0 || elements > kMaxElements) {
      error = "argument #" + std::to_string(i) + ": " +
              ref::shapeString(shape) +
              " is too large (at most 2^30 "
              "elements)";
      return failure();
    }
    shapes.push_back(std::move(shape));
  }
  return generateRandomInputs(func, shapes, randomSeed, error);
}

static FailureOr<std::vector<HostTensor>> loadInputs(func::FuncOp func,
                                                     std::string &error) {
  std::vector<HostTensor> inputs;
  for (auto [i, argType] : llvm::enumerate(func.getArgumentTypes())) {
    auto type = cast<RankedTensorType>(argType);
    ElementType element = *toElementType(type.getElementType());
    std::string path = stripAt(inputFiles[i]);
    std::string which = "input #" + std::to_string(i) + " (" + path + ")";
    runtime::NpyArray array;
    std::string why;
    if (!runtime::readNpy(path, array, why)) {
      error = "input #" + std::to_string(i) + ": " + why;
      return failure();
    }
    std::string expected = runtime::expectedNpyDtypes(array.dtype, element);
    if (!expected.empty()) {
      std::string dtype = dtypeName(array.dtype);
      error = which + " is " + withArticle(dtype) + " array, but argument #" +
              std::to_string(i) + " of type " + str(type) + " needs " +
              withArticle(expected) + " array";
      return failure();
    }
    if (!fitsType(array.shape, type)) {
      error = which + " is " + ref::shapeString(array.shape) +
              ", but argument #" + std::to_string(i) + " has type " + str(type);
      return failure();
    }
    if (checkedElements(array.shape) > kMaxElements) {
      error = which + " is too large (at most 2^30 elements)";
      return failure();
    }
    HostTensor t;
    if (!runtime::npyToHostTensor(array, element, t, why)) {
      error = which + ": " + why;
      return failure();
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

static LogicalResult parseNumbers(std::string &error) {
  auto bad = [&](StringRef option, StringRef value, StringRef expected) {
    error = "--" + option.str() + "=" + value.str() + ": expected " +
            expected.str();
    return failure();
  };
  if (randomInputs.getNumOccurrences() &&
      StringRef(randomInputs).getAsInteger(10, randomSeed))
    return bad("random-inputs", randomInputs, "an unsigned integer seed");
  if (StringRef(benchmarkRuns).getAsInteger(10, benchmarkCount))
    return bad("benchmark", benchmarkRuns, "a number of runs");
  if (StringRef(vectorWidthOption).getAsInteger(10, vectorWidth) ||
      vectorWidth < 1 || (vectorWidth & (vectorWidth - 1)) != 0)
    return bad("vector-width", vectorWidthOption,
               "a power of two number of lanes");
  return success();
}

/// Writes --output files, prints the results, --verify against the float64
/// reference and --benchmark (`timeRuns` fills benchmarkCount times in ms):
/// the same for every device.
static int report(func::FuncOp func, ArrayRef<HostTensor> inputs,
                  const std::vector<HostTensor> &results,
                  function_ref<LogicalResult(std::vector<double> &)> timeRuns,
                  std::string &error) {
  // Outputs.
  for (auto [i, path] : llvm::enumerate(outputFiles)) {
    std::string why;
    if (!runtime::writeNpy(stripAt(path), runtime::hostTensorToNpy(results[i]),
                           why))
      return fail("result #" + std::to_string(i) + ": " + why);
  }

  auto resultType = [&](size_t i) {
    return resolvedType(cast<RankedTensorType>(func.getResultTypes()[i]),
                        results[i].shape);
  };
  if (outputFiles.empty() && !verifyResults && benchmarkCount == 0) {
    for (size_t i = 0; i < results.size(); ++i) {
      llvm::outs() << "result #" << i << " (" << resultType(i) << "):";
      size_t shown = std::min<size_t>(results[i].data.size(), 8);
      for (size_t j = 0; j < shown; ++j)
        llvm::outs() << (j ? ", " : " ") << results[i].data[j];
      if (shown < results[i].data.size())
        llvm::outs() << ", ... (" << results[i].data.size() << " values)";
      llvm::outs() << "\n";
    }
  }

  // --verify: the reference on the same inputs.
  int failures = 0;
  if (verifyResults) {
    FailureOr<ReferenceRun> reference = evaluateReference(func, inputs, error);
    if (failed(reference))
      return fail(error);
    for (size_t i = 0; i < results.size(); ++i) {
      const std::optional<SelectionContext> &selection =
          reference->selections[i];
      const std::optional<ref::PageLayout> &pages = reference->pageLayouts[i];
      Comparison comparison =
          pages ? runtime::comparePages(results[i], reference->results[i], *pages)
                : compareWithReference(results[i], reference->results[i],
                                       selection ? &*selection : nullptr);
      failures += !comparison.ok;
      llvm::outs() << "result #" << i << " (" << resultType(i)
                   << "): " << formatComparison(comparison, results[i].type)
                   << "\n";
    }
  }

  // --benchmark: N timed runs after the first.
  if (benchmarkCount > 0) {
    std::vector<double> milliseconds;
    if (failed(timeRuns(milliseconds)))
      return fail(error);
    std::sort(milliseconds.begin(), milliseconds.end());
    size_t n = milliseconds.size();
    double median = n % 2 ? milliseconds[n / 2]
                          : (milliseconds[n / 2 - 1] + milliseconds[n / 2]) / 2;
    double bytes = 0;
    for (const HostTensor &t : inputs)
      bytes += double(t.numElements() * ref::elementTypeBytes(t.type));
    for (const HostTensor &t : results)
      bytes += double(t.numElements() * ref::elementTypeBytes(t.type));
    double gbps = median > 0 ? bytes / (median * 1e-3) / 1e9 : 0.0;
    char line[128];
    std::snprintf(line, sizeof(line), "median_ms=%.4f effective_GBps=%.3f",
                  median, gbps);
    llvm::outs() << line << "\n";
  }

  if (failures)
    return fail(std::to_string(failures) + " of " +
                std::to_string(results.size()) +
                " results are out of tolerance (--verify)");
  return 0;
}

/// --device=cuda: the function compiled for --chip (PTX, JIT-compiled by the
/// driver for the device), described by a manifest and run by the MLIR-free
/// CUDA runtime, as indexpool-launch would run indexpool-compile's output.
static int runOnCuda(ModuleOp module, func::FuncOp func,
                     ArrayRef<HostTensor> inputs) {
  std::string error;
  // Without a driver there is nothing to compile for: say so first.
  std::unique_ptr<runtime::CudaDevice> device =
      runtime::CudaDevice::open(error);
  if (!device)
    return fail(error);
  FailureOr<GPUPipelineOptions> options = gpuPipelineOptionsFor(chipName, error);
  if (failed(options))
    return fail(error);
  options->format = "isa";
  options->fuse = fuseOps;
  if (const char *cuda = std::getenv("CUDA_HOME"))
    options->cudaToolkit = cuda;
  std::string binaryName = func.getSymName().str() + "." + chipName + ".ptx";
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
      compileForGPU(*specialized, target, *options, binaryName, error);
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
  if (!launcher || !launcher->upload(std::vector<HostTensor>(inputs.begin(),
                                                             inputs.end()),
                                     error) ||
      !launcher->run(error) || !launcher->download(results, error))
    return fail(error);
  return report(func, inputs, results, [&](std::vector<double> &ms) {
    return success(launcher->benchmark(benchmarkCount, ms, error));
  }, error);
}

static int runMain() {
  std::string error;
  if (failed(parseNumbers(error)))
    return fail(error);
  if (functionName.empty())
    return fail("--function=NAME is required (the func.func to run)");
  bool emulateGPU = deviceName == "gpu-emulator";
  if (deviceName != "cpu" && deviceName != "cuda" && !emulateGPU)
    return fail("unknown device '" + deviceName +
                "' (expected --device=cpu, cuda or gpu-emulator)");
  bool random = randomInputs.getNumOccurrences() > 0;
  if (random && !inputFiles.empty())
    return fail("--input and --random-inputs cannot be combined");
  if (!random && !inputShapes.empty())
    return fail("--input-shape only applies with --random-inputs");

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
  std::string text, errorMessage;
  if (!runtime::readMlirInput(inputFilename, text, errorMessage))
    return fail(errorMessage);
  auto file = llvm::MemoryBuffer::getMemBufferCopy(
      text, runtime::inputBufferName(inputFilename));
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("cannot parse " + inputFilename);

  std::string name = stripAt(functionName);
  auto func = module->lookupSymbol<func::FuncOp>(name);
  if (!func || func.isExternal())
    return fail("no function @" + name + " in " + inputFilename);
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !toElementType(tensor.getElementType()))
      return fail("argument #" + std::to_string(i) + " of @" + name +
                  " has type " + str(type) +
                  ": indexpool-run takes ranked tensors of f32, f16, bf16, "
                  "f8E4M3FN, i8, i32 or i64");
  }
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !toElementType(tensor.getElementType()))
      return fail("result #" + std::to_string(i) + " of @" + name +
                  " has type " + str(type) +
                  ": indexpool-run returns ranked tensors of f32, f16, bf16, "
                  "f8E4M3FN, i8, i32 or i64");
  }
  unsigned numArgs = func.getNumArguments();
  unsigned numResults = func.getNumResults();
  if (!outputFiles.empty() && outputFiles.size() != numResults)
    return fail("@" + name + " has " + plural(numResults, "result") + ", got " +
                std::to_string(outputFiles.size()) + " --output");

  // Inputs.
  if (!random && inputFiles.size() != numArgs)
    return fail("@" + name + " takes " + plural(numArgs, "argument") +
                ", got " + std::to_string(inputFiles.size()) +
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
  for (auto [i, result] : llvm::enumerate(*predicted)) {
    int64_t elements = checkedElements(result.shape);
    if (elements < 0 || elements > kMaxElements)
      return fail("result #" + std::to_string(i) + " would be " +
                  ref::shapeString(result.shape) +
                  ", too large (at most 2^30 elements)");
  }

  if (deviceName == "cuda")
    return runOnCuda(*module, func, *inputs);

  CPUJitOptions jitOptions;
  jitOptions.vectorWidth = vectorWidth;
  jitOptions.checkBounds = checkBounds;
  jitOptions.fuse = fuseOps;
  if (emulateGPU)
    jitOptions.emulatedGPU = chipName;
  std::unique_ptr<CPUJitFunction> compiled =
      CPUJitFunction::compile(func, jitOptions, error);
  if (!compiled)
    return fail(error);
  compiled->setInputs(*inputs);
  std::vector<HostTensor> results;
  if (failed(compiled->call(*predicted, &results, error)))
    return fail(error);
  return report(func, *inputs, results, [&](std::vector<double> &ms) {
    for (unsigned run = 0; run < benchmarkCount; ++run) {
      auto start = std::chrono::steady_clock::now();
      if (failed(compiled->call(*predicted, nullptr, error)))
        return failure();
      auto stop = std::chrono::steady_clock::now();
      ms.push_back(
          std::chrono::duration<double, std::milli>(stop - start).count());
    }
    return success();
  }, error);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  // By name for --mlir-print-ir-after=indexpool-fuse (what --fuse runs);
  // before the pass manager's options, whose parser lists the passes.
  registerIndexPoolFuse();
  registerPassManagerCLOptions();
  cl::HideUnrelatedOptions(category);
  // Command-line mistakes end like every other bad input: one error line.
  std::string clErrors;
  llvm::raw_string_ostream clErrorStream(clErrors);
  bool parsed = cl::ParseCommandLineOptions(
      argc, argv,
      "indexpool-run: compiles one function of an indexpool module and runs "
      "it\n\n"
      "  indexpool-run FILE.mlir --function=NAME [--input=@a.npy ...]\n"
      "      [--random-inputs=SEED] [--input-shape=I:AxBxC ...]\n"
      "      [--output=@out.npy ...] [--device=cpu|cuda|gpu-emulator] [--chip=sm_90]\n"
      "      [--verify] [--benchmark=N] [--vector-width=8] [--check-bounds]\n",
      &clErrorStream);
  if (!parsed) {
    SmallVector<StringRef> lines;
    StringRef(clErrors).trim().split(lines, '\n', -1, /*KeepEmpty=*/false);
    std::string message;
    for (StringRef line : lines) {
      line = line.trim();
      line.consume_front(StringRef(argv[0]).rsplit('/').second);
      line.consume_front("indexpool-run");
      line.consume_front(":");
      message += (message.empty() ? "" : " ") + line.trim().str();
    }
    return fail(message.empty() ? "bad command line" : message);
  }
  return runMain();
}
