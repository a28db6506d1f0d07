//===- indexpool-compile.cpp - kernels + manifest for a GPU ---------------===//
//
// indexpool-compile FILE.mlir --chip=sm_90 --emit=ptx|cubin|mlir -o DIR
//     [--function=NAME [--input-shape=I:AxBxC ...]] [--fuse=false]
//     [--tuning-db=FILE.json | --threads-per-block=N]
//
// For each public function, runs --indexpool-to-nvvm and
// writes DIR/NAME.CHIP.ptx or .cubin plus DIR/NAME.CHIP.json (NAME with
// %XX for bytes a file name should not hold: fileStem), the manifest
// (docs/manifest.md) that lets a runtime outside MLIR allocate the buffers,
// launch the kernels in order and check the results against the reference
// (compileForGPU, lib/Conversion/Pipelines/KernelManifest.cpp). A function
// with dynamic shapes compiles to one binary for every size: its kernels
// take their sizes as parameters and the manifest gives buffer shapes,
// grids and size parameters as formulas of the inputs' shapes and the
// device's SM count. --input-shape specializes it for one shape instead
// (specializeShapes: every size relation is checked first).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/KernelManifest.h"
#include "indexpool/Conversion/Passes.h"
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Evaluator/Evaluator.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Target/Chips.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/StringExtras.h"
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
    "threads-per-block", cl::init(256),
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

static int fail(const llvm::Twine &message) {
  llvm::errs() << "indexpool-compile: error: " << message << "\n";
  return 1;
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

/// A function name as one file name in DIR: a symbol name may be any
/// string ("../x", "a/b"). Bytes outside [A-Za-z0-9_.+-], '%' and a leading
/// '.' become %XX, so that no name leaves DIR, hides the file or collides
/// with another name.
static std::string fileStem(StringRef name) {
  // '%' alone, not followed by two hex digits: no other name maps here.
  if (name.empty())
    return "%";
  std::string stem;
  for (auto [i, c] : llvm::enumerate(name)) {
    if (llvm::isAlnum(c) || (c == '.' && i > 0) ||
        StringRef("_+-").contains(c)) {
      stem += c;
      continue;
    }
    stem += '%';
    stem += llvm::hexdigit((static_cast<unsigned char>(c) >> 4) & 15);
    stem += llvm::hexdigit(static_cast<unsigned char>(c) & 15);
  }
  return stem;
}

/// The function's types made static for the --input-shape sizes.
static LogicalResult specialize(func::FuncOp func, std::string &error) {
  std::map<unsigned, std::vector<int64_t>> given;
  for (const std::string &text : inputShapes)
    if (failed(parseInputShape(text, func.getNumArguments(), given, error)))
      return failure();
  std::vector<std::vector<int64_t>> shapes;
  for (auto [i, argType] : llvm::enumerate(func.getArgumentTypes())) {
    auto type = dyn_cast<RankedTensorType>(argType);
    auto it = given.find(unsigned(i));
    if (it != given.end()) {
      if (!type || !fitsType(it->second, type)) {
        error = "--input-shape: " + ref::shapeString(it->second) +
                " does not fit argument #" + std::to_string(i) + " of @" +
                func.getSymName().str();
        return failure();
      }
      shapes.push_back(it->second);
      continue;
    }
    if (!type || !type.hasStaticShape()) {
      error = "argument #" + std::to_string(i) + " of @" +
              func.getSymName().str() +
              " has a dynamic size: give its shape with --input-shape=" +
              std::to_string(i) + ":AxB...";
      return failure();
    }
    shapes.emplace_back(type.getShape().begin(), type.getShape().end());
  }
  return specializeShapes(func, shapes, error);
}

static int compileFunction(ModuleOp module, func::FuncOp func) {
  std::string name = func.getSymName().str(), error;
  FailureOr<GPUPipelineOptions> options = gpuPipelineOptionsFor(chip, error);
  if (failed(options))
    return fail(error);
  options->format = emit == "cubin" ? "bin" : "isa";
  options->threadsPerBlock = threadsPerBlock;
  // An explicit block size replaces the chip's configuration.
  options->configureUnconfigured = threadsPerBlock.getNumOccurrences() == 0;
  options->fuse = fuseOps;
  options->tuningDb = tuningDb;
  if (const char *cuda = std::getenv("CUDA_HOME"))
    options->cudaToolkit = cuda;

  std::string stem = fileStem(name) + "." + chip;
  std::string binaryName = stem + (emit == "cubin" ? ".cubin" : ".ptx");
  FailureOr<GPUCompilation> compiled =
      compileForGPU(module, func, *options, binaryName, error);
  if (failed(compiled))
    return fail(error);

  SmallString<256> path(outputDir);
  if (emit == "mlir") {
    llvm::sys::path::append(path, stem + ".mlir");
    std::string text;
    llvm::raw_string_ostream os(text);
    compiled->module->print(os);
    return failed(writeFile(path, text, error)) ? fail(error) : 0;
  }
  llvm::sys::path::append(path, binaryName);
  if (failed(writeFile(path, compiled->binary, error)))
    return fail(error);
  SmallString<256> manifestPath(outputDir);
  llvm::sys::path::append(manifestPath, stem + ".json");
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", json::Value(std::move(compiled->manifest)))
     << "\n";
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
  std::string rule = ::indexpool::target::threadsPerBlockRule(threadsPerBlock);
  if (!rule.empty())
    return fail("--" + rule);
  if (!tuningDb.empty() && threadsPerBlock.getNumOccurrences())
    return fail("--tuning-db and --threads-per-block both choose the block "
                "sizes: give one of them");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registry.insert<IndexPoolDialect>();
  MLIRContext context(registry);
  // An error at an op names its location; the op printed after it (a whole
  // kernel for a failed conversion) is noise for the user of a compiler.
  context.printOpOnDiagnostic(false);

  // Read with a limit: /dev/zero or an endless FIFO must not read forever.
  std::string text, error;
  if (!::indexpool::runtime::readMlirInput(inputFilename, text, error))
    return fail(error);
  auto file = llvm::MemoryBuffer::getMemBufferCopy(
      text, ::indexpool::runtime::inputBufferName(inputFilename));
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
  if (!inputShapes.empty() && functionName.empty())
    return fail("--input-shape needs --function=NAME (the shapes of one "
                "function's arguments)");
  for (func::FuncOp func : functions) {
    // A function with dynamic sizes compiles once for every size (the
    // manifest's sizes are formulas of the inputs' shapes); --input-shape
    // specializes it for one shape instead.
    if (!inputShapes.empty() && failed(specialize(func, error)))
      return fail(error);
    if (int rc = compileFunction(*module, func))
      return rc;
  }
  return 0;
}
