//===- CompileCommand.cpp - indexpool-compile as a call -------------------===//

#include "indexpool/API/CompileCommand.h"

#include "indexpool/API/Compiler.h"
#include "indexpool/API/Module.h"
#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/InputShape.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Target/CpuTargets.h"
#include "indexpool/ToolSupport/Flags.h"
#include "indexpool/ToolSupport/ToolError.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>

using namespace indexpool;
using tools::Flags;

namespace {

constexpr const char *kTool = "indexpool-compile";

/// The --input-shape sizes of function `symbol` (with its @) as
/// CompileOptions::inputShapes. Every argument with a dynamic size needs
/// one: the messages name the option, which the API's cannot.
Status inputShapesOf(const Module &module, const std::string &symbol,
                     const std::vector<std::string> &inputShapes,
                     CompileOptions &options) {
  FunctionSignature signature;
  if (Status s = module.signature(symbol, signature); !s)
    return s;
  std::map<size_t, std::vector<int64_t>> given;
  std::string error;
  for (const std::string &text : inputShapes)
    if (!runtime::parseInputShape(text, signature.arguments.size(), given,
                                  error, "argument"))
      return Status::error(error);
  for (auto [i, type] : llvm::enumerate(signature.arguments)) {
    std::string argument =
        "argument #" + std::to_string(i) + " of @" + signature.name;
    auto it = given.find(i);
    if (it == given.end()) {
      if (llvm::is_contained(type.shape, -1))
        return Status::error(argument +
                             " has a dynamic size: give its shape with "
                             "--input-shape=" +
                             std::to_string(i) + ":AxB...");
      continue;
    }
    // The API checks this too; here the message names the option.
    bool fits = it->second.size() == type.shape.size();
    for (size_t d = 0; fits && d < type.shape.size(); ++d)
      fits = type.shape[d] < 0 || type.shape[d] == it->second[d];
    if (!fits)
      return Status::error("--input-shape: " +
                           ref::shapeString(it->second) + " does not fit " +
                           argument);
    options.inputShapes.emplace_back(int(i), it->second);
  }
  return Status();
}

/// Writes `text` to `path` (replacing it).
Status writeFile(const std::string &path, const std::string &text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (!ec) {
    os << text;
    os.close();
    ec = os.error();
    // Cleared, or the stream's destructor would end the process.
    os.clear_error();
  }
  if (ec)
    return Status::error("cannot write " + path + ": " + ec.message());
  return Status();
}

/// Compiles function `name` and writes its files into the output folder.
Status compileFunction(const CompileCommand &command, const Module &module,
                       const std::string &name, std::string &wrote) {
  // The API drops one leading '@': with one added, a function whose name
  // starts with '@' is still itself.
  std::string symbol = "@" + name;
  CompileOptions options;
  if (command.target == "cpu") {
    options.cpu = command.cpu;
    options.int8Query = command.int8Query;
    options.fuse = command.fuse;
    options.tuningDB = command.tuningDb;
    if (!command.inputShapes.empty())
      if (Status s =
              inputShapesOf(module, symbol, command.inputShapes, options);
          !s)
        return s;
    std::string code, fileName;
    if (Status s = compileForCpuCode(module, symbol, options, command.emit,
                                     code, fileName);
        !s)
      return s;
    llvm::SmallString<256> path(command.outputDir);
    llvm::sys::path::append(path, fileName);
    if (Status s = writeFile(std::string(path), code); !s)
      return s;
    wrote = "wrote " + std::string(path);
    return Status();
  }
  options.binaryFormat = command.emit == "cubin" ? "cubin" : "ptx";
  options.keepModuleText = command.emit == "mlir";
  // An explicit block size replaces the chip's configuration.
  options.threadsPerBlock = command.threadsPerBlock.value_or(0);
  options.fuse = command.fuse;
  options.tuningDB = command.tuningDb;
  options.tensorCores = command.tensorCores;
  // A function with dynamic sizes compiles once for every size (the
  // manifest's sizes are formulas of the inputs' shapes); --input-shape
  // specializes it for one shape instead.
  if (!command.inputShapes.empty())
    if (Status s = inputShapesOf(module, symbol, command.inputShapes, options);
        !s)
      return s;
  GpuArtifact artifact;
  if (Status s = compileForGpu(module, symbol, command.chip, options, artifact);
      !s)
    return s;
  if (command.emit == "mlir") {
    llvm::SmallString<256> path(command.outputDir);
    llvm::sys::path::append(path, llvm::sys::path::stem(artifact.binaryName) +
                                      ".mlir");
    if (Status s = writeFile(std::string(path), artifact.moduleText); !s)
      return s;
    wrote = "wrote " + std::string(path);
    return Status();
  }
  std::string binaryPath, manifestPath;
  if (Status s = saveGpuArtifact(artifact, command.outputDir, &binaryPath,
                                 &manifestPath);
      !s)
    return s;
  wrote = "wrote " + binaryPath + " and " + manifestPath;
  return Status();
}

} // namespace

std::optional<int>
indexpool::readCompileCommandLine(int argc, const char *const *argv,
                                  CompileCommand &command) {
  int threads = target::kDefaultThreadsPerBlock;
  bool threadsGiven = false;
  Flags flags(kTool,
              "GPU kernels and a JSON manifest for a runtime outside MLIR",
              "FILE.mlir --chip=sm_XX -o DIR [options]");
  flags.positional("FILE.mlir", command.input)
      .option("--target", "gpu|cpu",
              "gpu (default): kernels and a manifest for --chip; cpu: an "
              "object file or assembly for --cpu",
              [&](const std::string &, const std::string &value) {
                command.target = value;
                return value == "gpu" || value == "cpu"
                           ? std::string()
                           : "--target must be gpu or cpu, got '" + value +
                                 "'";
              })
      .option("--chip", "sm_XX",
              "target GPU (--target=gpu, required): " +
                  target::knownChipNames(),
              Flags::text(command.chip))
      .option("--cpu", "NAME",
              "--target=cpu: the CPU target (default: the host's): " +
                  target::knownCpuTargetNames() +
                  "; another architecture's compiles here too",
              Flags::text(command.cpu))
      .option("--emit", "ptx|cubin|mlir|obj|asm",
              "--target=gpu: what to write next to the manifest: ptx "
              "(default), cubin (ptxas from CUDA_HOME) or mlir (the compiled "
              "module, no manifest); --target=cpu: obj (default, an ELF "
              "object) or asm (its assembly)",
              Flags::text(command.emit))
      .option("-o", "DIR", "output folder (created)",
              Flags::text(command.outputDir))
      .required()
      .option("--function", "NAME",
              "compile only this function (default: every public function)",
              Flags::text(command.function))
      .option("--input-shape", "I:AxBxC",
              "compile --function specialized for argument I of shape AxBxC "
              "(then every argument with a dynamic size needs one; without "
              "any, a dynamic function compiles for every size)",
              Flags::list(command.inputShapes))
      .option("--threads-per-block", "N",
              "threads per block of every kernel, instead of the chip's "
              "launch configuration (--indexpool-configure) for ops without "
              "one; a multiple of 32 up to 1024",
              Flags::number(threads, "a number of threads"))
      .given(threadsGiven)
      .flag("--int8-query",
            "--target=cpu: "
            "i8 and i4 keys scored with the CPU target's int8 dot "
            "(vpdpbusd, sdot), the query quantized per head to int8 codes "
            "and one f32 scale: faster, approximate (docs/design.md, CPU "
            "targets, bounds the difference); ignored where the target has "
            "no int8 dot",
            command.int8Query)
      .flag("--keep-going",
            "compile every function even when one fails: each failure is "
            "reported after its diagnostics as 'error: @NAME: MESSAGE', the "
            "others' files are written, and the exit status is 1 if any "
            "failed",
            command.keepGoing)
      .flag("--fuse",
            "run --indexpool-fuse first (default): compress and select chains "
            "become one kernel each, without their intermediates in device "
            "memory (--fuse=false compiles each op as written)",
            command.fuse)
      .option("--tuning-db", "FILE.json",
              "configure every op from this tuning database and the chip's "
              "cost model (--indexpool-configure's tuning-db), replacing any "
              "#indexpool.launch the IR carries",
              Flags::text(command.tuningDb))
      .flag("--tensor-cores",
            "the scores of score, select, refine and select_paged on the "
            "tensor cores (mma.sync; wgmma on sm_90a) where the shapes allow "
            "(a bf16 or FP8 query with FP8 or bf16 keys; an FP8 query decoded "
            "to bf16 once where the chip has no native e4m3 MMA; H and D "
            "multiples of 16). On by default: the logits then differ from "
            "the CPU's in the last bits (summation order); "
            "--tensor-cores=false keeps the CUDA-core kernels, whose logits "
            "equal the CPU's bit for bit",
            command.tensorCores)
      .epilog("For each public function, runs --indexpool-to-nvvm and writes "
              "DIR/NAME.CHIP.ptx or .cubin plus DIR/NAME.CHIP.json, the "
              "manifest (docs/manifest.md) that lets a runtime outside MLIR "
              "allocate the buffers, launch the kernels in order and check "
              "the results against the reference.");
  if (std::optional<int> exit = flags.parse(argc, argv))
    return exit;
  if (command.input.empty())
    return tools::toolError(kTool, "no input (FILE.mlir; see --help)");
  const bool cpu = command.target == "cpu";
  if (command.emit.empty())
    command.emit = cpu ? "obj" : "ptx";
  const bool emitFits =
      cpu ? command.emit == "obj" || command.emit == "asm"
          : command.emit == "ptx" || command.emit == "cubin" ||
                command.emit == "mlir";
  if (!emitFits)
    return tools::toolError(kTool,
                            std::string("--emit must be ") +
                                (cpu ? "obj or asm with --target=cpu"
                                     : "ptx, cubin or mlir with --target=gpu") +
                                ", got '" + command.emit + "'");
  if (!cpu && command.chip.empty())
    return tools::toolError(kTool, "--chip is required with --target=gpu "
                                   "(one of " +
                                       target::knownChipNames() + ")");
  if (cpu && (!command.chip.empty() || threadsGiven))
    return tools::toolError(kTool, "--chip and --threads-per-block are "
                                   "for --target=gpu");
  if (!cpu && !command.cpu.empty())
    return tools::toolError(kTool, "--cpu is for --target=cpu");
  if (!cpu && command.int8Query)
    return tools::toolError(kTool, "--int8-query is for --target=cpu");
  if (cpu && !command.cpu.empty() && command.cpu != "host") {
    std::string error;
    if (!target::findCpuTarget(command.cpu, error))
      return tools::toolError(kTool, "--cpu: " + error);
  }
  if (threadsGiven) {
    // Checked here too (compileForGpu checks the API's fields) so that the
    // messages name the options.
    if (std::string rule = target::threadsPerBlockRule(threads); !rule.empty())
      return tools::toolError(kTool, "--" + rule);
    if (!command.tuningDb.empty())
      return tools::toolError(kTool,
                              "--tuning-db and --threads-per-block both "
                              "choose the block sizes: give one of them");
    command.threadsPerBlock = threads;
  }
  return std::nullopt;
}

Status indexpool::runCompileCommand(const CompileCommand &command,
                                    std::vector<std::string> &written) {
  // Read with a limit: /dev/zero or an endless FIFO must not read forever.
  std::string text, error;
  if (!runtime::readMlirInput(command.input, text, error))
    return Status::error(error);
  Status status;
  std::unique_ptr<Module> module =
      Module::parse(text, status, runtime::inputBufferName(command.input));
  if (!module)
    return status;
  if (std::error_code ec = llvm::sys::fs::create_directories(command.outputDir))
    return Status::error("cannot create " + command.outputDir + ": " +
                         ec.message());
  std::vector<std::string> functions;
  for (const std::string &name : module->functionNames())
    if (command.function.empty() || name == command.function)
      functions.push_back(name);
  if (functions.empty())
    return Status::error(command.function.empty()
                             ? "no public function in " + command.input
                             : "no function @" + command.function + " in " +
                                   command.input);
  if (!command.inputShapes.empty() && command.function.empty())
    return Status::error("--input-shape needs --function=NAME (the shapes of "
                         "one function's arguments)");
  std::string failures, failedNames;
  size_t failed = 0;
  for (const std::string &name : functions) {
    std::string wrote;
    Status s = compileFunction(command, *module, name, wrote);
    if (s) {
      written.push_back(wrote);
      continue;
    }
    if (!command.keepGoing)
      return s;
    // The diagnostics first, then the function's own error line, as the
    // tool prints a single failure.
    const std::string &message = s.message();
    size_t newline = message.find('\n');
    if (newline != std::string::npos)
      failures += message.substr(newline + 1) + "\n";
    failures += "error: @" + name + ": " + message.substr(0, newline) + "\n";
    failedNames += (failed++ ? ", @" : "@") + name;
  }
  if (failed == 0)
    return Status();
  failures.pop_back();
  return Status::error(
      std::to_string(failed) + " of " + std::to_string(functions.size()) +
      " functions failed (--keep-going): " + failedNames + "\n" + failures);
}
