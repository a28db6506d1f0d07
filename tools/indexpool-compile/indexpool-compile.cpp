//===- indexpool-compile.cpp - kernels + manifest for a GPU ---------------===//
//
// indexpool-compile FILE.mlir --chip=sm_90 --emit=ptx|cubin|mlir -o DIR
//     [--function=NAME [--input-shape=I:AxBxC ...]] [--fuse=false]
//     [--tuning-db=FILE.json | --threads-per-block=N]
//
// For each public function, runs --indexpool-to-nvvm and
// writes DIR/NAME.CHIP.ptx or .cubin plus DIR/NAME.CHIP.json (NAME with
// %XX for bytes a file name should not hold: GpuArtifact::binaryName), the
// manifest (docs/manifest.md) that lets a runtime outside MLIR allocate the
// buffers, launch the kernels in order and check the results against the
// reference. A command line over the embedding API
// (indexpool/API/Compiler.h: compileForGpu, saveGpuArtifact). A function
// with dynamic shapes compiles to one binary for every size: its kernels
// take their sizes as parameters and the manifest gives buffer shapes,
// grids and size parameters as formulas of the inputs' shapes and the
// device's SM count. --input-shape specializes it for one shape instead
// (CompileOptions::inputShapes: every size relation is checked first).
//
//===----------------------------------------------------------------------===//

#include "indexpool/API/Compiler.h"
#include "indexpool/API/Module.h"
#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/InputShape.h"
#include "indexpool/Target/Chips.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cl = llvm::cl;
namespace runtime = ::indexpool::runtime;
using ::indexpool::CompileOptions;
using ::indexpool::FunctionSignature;
using ::indexpool::GpuArtifact;
using ::indexpool::Module;
using ::indexpool::Status;
using ::indexpool::compileForGpu;
using ::indexpool::saveGpuArtifact;

static cl::OptionCategory category("indexpool-compile options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::Required,
                                          cl::desc("<input.mlir>"),
                                          cl::cat(category));
/// The chips of the target table (lib/Target/Chips.cpp), for --help.
static llvm::StringRef chipHelp() {
  static const std::string help =
      "Target GPU: " + ::indexpool::target::knownChipNames();
  return help;
}
static cl::opt<std::string> chip("chip", cl::Required, cl::desc(chipHelp()),
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
static cl::list<std::string> inputShapes(
    "input-shape", cl::value_desc("I:AxBxC"),
    cl::desc("Compile --function specialized for argument I of shape AxBxC "
             "(then every argument with a dynamic size needs one; without "
             "any, a dynamic function compiles for every size)"),
    cl::cat(category));
static cl::opt<int64_t> threadsPerBlock(
    "threads-per-block", cl::init(::indexpool::target::kDefaultThreadsPerBlock),
    cl::desc("Threads per block of every kernel, instead of the chip's "
             "launch configuration (--indexpool-configure) for ops without "
             "one; a multiple of 32 up to 1024"),
    cl::cat(category));

static cl::opt<bool> fuseOps(
    "fuse", cl::init(true),
    cl::desc("Run --indexpool-fuse first (default): compress and select "
             "chains become one kernel each, without their intermediates "
             "in device memory (--fuse=false compiles each op as written)"),
    cl::cat(category));
static cl::opt<std::string> tuningDb(
    "tuning-db", cl::value_desc("FILE.json"),
    cl::desc("Configure every op from this tuning database and the chip's "
             "cost model (--indexpool-configure's tuning-db), replacing any "
             "#indexpool.launch the IR carries"),
    cl::cat(category));

static cl::opt<bool> tensorCores(
    "tensor-cores", cl::init(true),
    cl::desc("The scores of score, select, refine and select_paged on the "
             "tensor cores (mma.sync; wgmma on sm_90a) where the shapes "
             "allow (a bf16 or FP8 query with FP8 or bf16 keys; an FP8 query "
             "decoded to bf16 once where the chip has no native e4m3 MMA; H "
             "and D multiples of 16). On by default: the logits then differ "
             "from the CPU's in the last bits (summation order); "
             "--tensor-cores=false keeps the CUDA-core kernels, whose logits "
             "equal the CPU's bit for bit"),
    cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "indexpool-compile: error: " << message << "\n";
  return 1;
}

/// A failed API call: its message is a one-line summary, then the compiler's
/// diagnostics ("FILE:line:col: error: ..."), one per line. They are printed
/// first, as the summary ("... failed (see the diagnostics)") says.
static int fail(const Status &status) {
  auto [summary, diagnostics] = llvm::StringRef(status.message()).split('\n');
  if (!diagnostics.empty())
    llvm::errs() << diagnostics << "\n";
  return fail(summary);
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// The --input-shape sizes of function `symbol` (with its @) as
/// CompileOptions::inputShapes.
/// Every argument with a dynamic size needs one: the messages name the
/// option, which the API's cannot.
static bool inputShapesOf(const Module &module, const std::string &symbol,
                          CompileOptions &options, std::string &error) {
  FunctionSignature signature;
  if (Status s = module.signature(symbol, signature); !s) {
    error = s.message();
    return false;
  }
  std::map<size_t, std::vector<int64_t>> given;
  for (const std::string &text : inputShapes)
    if (!runtime::parseInputShape(text, signature.arguments.size(), given,
                                  error, "argument"))
      return false;
  for (auto [i, type] : llvm::enumerate(signature.arguments)) {
    std::string argument =
        "argument #" + std::to_string(i) + " of @" + signature.name;
    auto it = given.find(i);
    if (it == given.end()) {
      if (llvm::is_contained(type.shape, -1)) {
        error = argument + " has a dynamic size: give its shape with "
                "--input-shape=" + std::to_string(i) + ":AxB...";
        return false;
      }
      continue;
    }
    // The API checks this too; here the message names the option.
    bool fits = it->second.size() == type.shape.size();
    for (size_t d = 0; fits && d < type.shape.size(); ++d)
      fits = type.shape[d] < 0 || type.shape[d] == it->second[d];
    if (!fits) {
      error = "--input-shape: " + ::indexpool::ref::shapeString(it->second) +
              " does not fit " + argument;
      return false;
    }
    options.inputShapes.emplace_back(int(i), it->second);
  }
  return true;
}

/// Compiles function `name` and writes its files into --o.
static int compileFunction(const Module &module, const std::string &name) {
  // The API drops one leading '@': with one added, a function whose name
  // starts with '@' is still itself.
  std::string symbol = "@" + name;
  CompileOptions options;
  options.binaryFormat = emit == "cubin" ? "cubin" : "ptx";
  options.keepModuleText = emit == "mlir";
  // An explicit block size replaces the chip's configuration.
  if (threadsPerBlock.getNumOccurrences())
    options.threadsPerBlock = int(threadsPerBlock);
  options.fuse = fuseOps;
  options.tuningDB = tuningDb;
  options.tensorCores = tensorCores;
  // A function with dynamic sizes compiles once for every size (the
  // manifest's sizes are formulas of the inputs' shapes); --input-shape
  // specializes it for one shape instead.
  std::string error;
  if (!inputShapes.empty() && !inputShapesOf(module, symbol, options, error))
    return fail(error);

  GpuArtifact artifact;
  if (Status s = compileForGpu(module, symbol, chip, options, artifact); !s)
    return fail(s);
  if (emit == "mlir") {
    llvm::SmallString<256> path(outputDir);
    llvm::sys::path::append(path, llvm::sys::path::stem(artifact.binaryName) +
                                      ".mlir");
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
    if (!ec) {
      os << artifact.moduleText;
      os.close();
      ec = os.error();
      // Cleared, or the stream's destructor would end the process.
      os.clear_error();
    }
    return ec ? fail("cannot write " + path + ": " + ec.message()) : 0;
  }
  std::string binaryPath, manifestPath;
  if (Status s =
          saveGpuArtifact(artifact, outputDir, &binaryPath, &manifestPath);
      !s)
    return fail(s);
  llvm::outs() << "wrote " << binaryPath << " and " << manifestPath << "\n";
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
  // Checked here too (compileForGpu checks the API's fields) so that the
  // messages name the options.
  std::string rule = ::indexpool::target::threadsPerBlockRule(threadsPerBlock);
  if (!rule.empty())
    return fail("--" + rule);
  if (!tuningDb.empty() && threadsPerBlock.getNumOccurrences())
    return fail("--tuning-db and --threads-per-block both choose the block "
                "sizes: give one of them");

  // Read with a limit: /dev/zero or an endless FIFO must not read forever.
  std::string text, error;
  if (!runtime::readMlirInput(inputFilename, text, error))
    return fail(error);
  Status status;
  std::unique_ptr<Module> module = Module::parse(
      text, status, runtime::inputBufferName(inputFilename));
  if (!module)
    return fail(status);
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return fail("cannot create " + outputDir + ": " + ec.message());

  std::vector<std::string> functions;
  for (const std::string &name : module->functionNames())
    if (functionName.empty() || name == functionName)
      functions.push_back(name);
  if (functions.empty())
    return fail(functionName.empty()
                    ? "no public function in " + inputFilename
                    : "no function @" + functionName + " in " + inputFilename);
  if (!inputShapes.empty() && functionName.empty())
    return fail("--input-shape needs --function=NAME (the shapes of one "
                "function's arguments)");
  for (const std::string &name : functions)
    if (int rc = compileFunction(*module, name))
      return rc;
  return 0;
}
