//===- indexpool-run.cpp - compile one function and run it ----------------===//
//
// Modeled on iree-run-module:
//
//   indexpool-run FILE.mlir --function=NAME [--input=@a.npy ...]
//       [--random-inputs=SEED] [--input-shape=I:AxBxC ...]
//       [--output=@out.npy ...] [--device=cpu|cuda|gpu-emulator]
//       [--chip=sm_90] [--verify] [--benchmark=N] [--vector-width=8]
//       [--tuning-db=FILE] [--check-bounds]
//
// The command line of runModule (indexpool/Tooling/RunModule.h), which
// does the work. Every bad input ends with one line "indexpool-run: error:
// ..." and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Tooling/RunModule.h"
#include "indexpool/ToolSupport/ToolError.h"
#include "indexpool/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;
using namespace mlir::indexpool;
namespace cl = llvm::cl;
namespace tools = ::indexpool::tools;

static constexpr const char *kTool = "indexpool-run";

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

// Numbers are parsed by readOptions(), not by cl.
static cl::opt<std::string> randomInputs(
    "random-inputs", cl::value_desc("SEED"),
    cl::desc("Instead of --input: draw every input at random from SEED, as "
             "the argument is used (keys, queries, scores, bias, weights: "
             "N(0,1); scales: uniform [1e-3, 1e-2]; quantized keys: valid "
             "codes; valid lengths: [0, N]; expand indices: [-1, 1000]; refine "
             "candidates: token ids of the keys, one in eight -1; paged "
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

static cl::opt<std::string> tuningDb(
    "tuning-db", cl::value_desc("FILE"),
    cl::desc("--device=cpu: a JSON tuning database (docs/design.md, \"The "
             "tuning database\"); the ops its \"cpu\" entries match use "
             "their entry's vector_width instead of --vector-width"),
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

static cl::opt<bool> tensorCores(
    "tensor-cores",
    cl::init(true),
    cl::desc("--device=cuda and gpu-emulator: the scores of score, select, "
             "refine and select_paged on the tensor cores (mma.sync) where "
             "the shapes allow (a bf16 query with FP8 or bf16 keys, or FP8 "
             "query and keys from sm_89; H and D multiples of 16). On by "
             "default: the logits then differ from the CPU's in the last "
             "bits; --tensor-cores=false keeps the CUDA-core kernels, whose "
             "logits equal the CPU's bit for bit"),
    cl::cat(category));

/// The options of runModule from the command line. Numbers are parsed here,
/// not by cl, so that a bad value ends in the one error line of every other
/// bad input.
static LogicalResult readOptions(RunModuleOptions &options,
                                 std::string &error) {
  auto bad = [&](StringRef option, StringRef value, StringRef expected) {
    error = "--" + option.str() + "=" + value.str() + ": expected " +
            expected.str();
    return failure();
  };
  if (randomInputs.getNumOccurrences() &&
      StringRef(randomInputs).getAsInteger(10, options.randomSeed.emplace()))
    return bad("random-inputs", randomInputs, "an unsigned integer seed");
  if (StringRef(benchmarkRuns).getAsInteger(10, options.benchmarkRuns))
    return bad("benchmark", benchmarkRuns, "a number of runs");
  int64_t &vectorWidth = options.vectorWidth;
  if (StringRef(vectorWidthOption).getAsInteger(10, vectorWidth) ||
      vectorWidth < 1 || (vectorWidth & (vectorWidth - 1)) != 0)
    return bad("vector-width", vectorWidthOption,
               "a power of two number of lanes");
  options.toolName = kTool;
  options.inputFilename = inputFilename;
  options.functionName = functionName;
  options.inputFiles = inputFiles;
  options.inputShapes = inputShapes;
  options.outputFiles = outputFiles;
  options.device = deviceName;
  options.tuningDb = tuningDb;
  options.chip = chipName;
  options.verify = verifyResults;
  options.fuse = fuseOps;
  options.checkBounds = checkBounds;
  if (tensorCores.getNumOccurrences())
    options.tensorCores = tensorCores;
  return success();
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
      "      [--verify] [--benchmark=N] [--vector-width=8] [--tuning-db=FILE]\n"
      "      [--check-bounds]\n",
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
    return tools::toolError(kTool,
                            message.empty() ? "bad command line" : message);
  }
  RunModuleOptions options;
  std::string error;
  if (failed(readOptions(options, error)))
    return tools::toolError(kTool, error);
  return runModule(options);
}
