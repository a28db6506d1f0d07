//===- RunCommandLine.cpp - indexpool-run's flags --------------------------===//

#include "indexpool/Tooling/RunCommandLine.h"

#include "indexpool/Target/Chips.h"
#include "indexpool/Target/CpuTargets.h"

#include "indexpool/ToolSupport/Flags.h"
#include "indexpool/ToolSupport/ToolError.h"
#include "indexpool/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

using indexpool::tools::Flags;

namespace {

/// MLIR's --mlir-* options through MLIR's own parser; its complaints as
/// one message.
std::string parseMlirOptions(const char *tool,
                             const std::vector<std::string> &mlirOptions) {
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  // By name for --mlir-print-ir-after=indexpool-fuse (what --fuse runs);
  // before the pass manager's options, whose parser lists the passes.
  mlir::indexpool::registerIndexPoolFuse();
  mlir::registerPassManagerCLOptions();
  llvm::SmallVector<const char *> args{tool};
  for (const std::string &option : mlirOptions)
    args.push_back(option.c_str());
  std::string errors;
  llvm::raw_string_ostream stream(errors);
  if (llvm::cl::ParseCommandLineOptions(int(args.size()), args.data(), "",
                                        &stream))
    return "";
  // The first line says what; LLVM's "Try: ..." and "Did you mean" follow.
  llvm::StringRef first = llvm::StringRef(errors).trim().split('\n').first;
  first = first.split("  Try:").first.trim();
  first.consume_front(tool);
  first.consume_front(":");
  std::string message = first.trim().str();
  return message.empty() ? "bad --mlir-* option" : message;
}

} // namespace

std::optional<int>
mlir::indexpool::readRunCommandLine(int argc, const char *const *argv,
                                       RunModuleOptions &options) {
  const char *tool = "indexpool-run";
  options.toolName = tool;
  std::vector<std::string> mlirOptions;
  bool tensorCoresGiven = false, tensorCores = true;
  Flags flags(tool, "compiles one function of an indexpool module and runs it",
              "FILE.mlir --function=NAME [options]");
  flags.positional("FILE.mlir", options.inputFilename)
      .passThrough("--mlir-", mlirOptions)
      .option("--function", "NAME",
              "the func.func to run (with or without the @)",
              Flags::text(options.functionName))
      .option("--input", "@FILE.npy",
              "one .npy input per argument, in argument order. f32, f16, bf16 "
              "and f8E4M3FN arguments read float32 or float16 arrays (rounded "
              "to nearest even), i8 arguments int8 arrays, i32 arguments "
              "int32 arrays, i64 arguments int64 arrays",
              Flags::list(options.inputFiles))
      .option("--random-inputs", "SEED",
              "instead of --input: draw every input at random from SEED, as "
              "the argument is used (keys, queries, scores, bias, weights: "
              "N(0,1); scales: uniform [1e-3, 1e-2]; quantized keys: valid "
              "codes; valid lengths: [0, N]; expand indices: [-1, 1000]; "
              "refine candidates: token ids of the keys, one in eight -1; "
              "paged slots: distinct, one in eight -1; block tables: page "
              "ids; pages: random bytes; other integers: [0, 100]). Dynamic "
              "sizes are 256 unless --input-shape gives them",
              [&](const std::string &option, const std::string &value) {
                return Flags::seed(options.randomSeed.emplace())(option,
                                                                 value);
              })
      .option("--input-shape", "I:AxBxC",
              "with --random-inputs: the shape of argument I (0-based), e.g. "
              "--input-shape=0:1000x128; must fit the argument's type",
              Flags::list(options.inputShapes))
      .option("--output", "@FILE.npy",
              "one .npy file per result, in result order: f32, f16, bf16 and "
              "f8E4M3FN results as float32 (decoded values), i8 as int8, i32 "
              "as int32, i64 as int64",
              Flags::list(options.outputFiles))
      .option("--device", "cpu|cuda|gpu-emulator",
              "where to run: the CPU (JIT with OpenMP), an NVIDIA GPU "
              "(compiled for --chip, PTX run through the CUDA driver; static "
              "shapes), or the GPU kernels of --chip emulated on CPU threads "
              "(tests; slow)",
              Flags::text(options.device))
      .option("--chip", "sm_XX",
              "the GPU architecture for --device=cuda and "
              "--device=gpu-emulator (ignored on the CPU)",
              Flags::text(options.chip))
      .flag("--verify",
            "compare every result with the float64 reference evaluator on "
            "the same inputs; print one line per result with its errors and "
            "exit with 1 if any is out of tolerance (f32: normwise relative "
            "error <= 1e-5; f16/bf16: within one ulp plus one ulp of the "
            "largest magnitude; i8/f8 codes: at most 0.1% differ, each by "
            "one code or by <= 2^-8 * qmax; i32: equal, except near-tie "
            "swaps of selections of computed logits)",
            options.verify)
      .option("--benchmark", "N",
              "run the compiled function N more times after the first run; "
              "print the median time, the effective GB/s (bytes of all "
              "inputs and outputs over the median time) and the best time",
              Flags::number(options.benchmarkRuns, "a number of runs"))
      .option("--cpu", "NAME",
              "--device=cpu (and the GPU emulator's host code): the CPU "
              "target to compile for (default: the "
              "host's, detected): " +
                  ::indexpool::target::knownCpuTargetNames() +
                  "; one this host cannot run is refused before anything "
                  "runs, naming the features it lacks",
              Flags::text(options.cpu))
      .option("--vector-width", "LANES",
              "f32 lanes of the vectors the CPU loops over D use (default: "
              "the CPU target's)",
              Flags::number<int64_t>(
                  options.vectorWidth,
                  "a power of two number of lanes from 1 to " +
                      std::to_string(::indexpool::target::kMaxVectorWidth),
                  ::indexpool::target::isValidVectorWidth))
      .option("--tuning-db", "FILE",
              "--device=cpu: a JSON tuning database (docs/design.md, \"The "
              "tuning database\"); the ops its \"cpu\" entries match use "
              "their entry's vector_width instead of --vector-width",
              Flags::text(options.tuningDb))
      .flag("--int8-query",
            "--device=cpu: "
            "i8 and i4 keys scored with the CPU target's int8 dot "
            "(vpdpbusd, sdot), the query quantized per head to int8 codes "
            "and one f32 scale: faster, approximate (docs/design.md, CPU "
            "targets, bounds the difference; not with --verify, whose "
            "reference is exact); ignored where the target has no int8 dot",
            options.int8Query)
      .flag("--fuse",
            "run --indexpool-fuse before compiling (default; --fuse=false "
            "compiles each op as written). The reference evaluates the "
            "function as written either way",
            options.fuse)
      .flag("--check-bounds",
            "--device=cpu and gpu-emulator: check every memory access of "
            "the compiled code against its buffer; one outside it prints an "
            "error naming the access and its location and exits with 1 "
            "(slower; the tests run with it)",
            options.checkBounds)
      .flag("--tensor-cores",
            "--device=cuda and gpu-emulator: the scores of score, select, "
            "refine and select_paged on the tensor cores (mma.sync) where "
            "the shapes allow (a bf16 query with FP8 or bf16 keys, or FP8 "
            "query and keys from sm_89; H and D multiples of 16). On by "
            "default: the logits then differ from the CPU's in the last "
            "bits; --tensor-cores=false keeps the CUDA-core kernels, whose "
            "logits equal the CPU's bit for bit",
            tensorCores)
      .given(tensorCoresGiven)
      .epilog("MLIR's own options (--mlir-print-ir-after=indexpool-fuse, "
              "--mlir-print-debuginfo, ...) are passed on to MLIR. FILE.mlir "
              "- reads stdin. Modeled on iree-run-module.");
  if (std::optional<int> exit = flags.parse(argc, argv))
    return exit;
  if (tensorCoresGiven)
    options.tensorCores = tensorCores;
  if (std::string error = parseMlirOptions(tool, mlirOptions); !error.empty())
    return ::indexpool::tools::toolError(tool, error);
  return std::nullopt;
}
