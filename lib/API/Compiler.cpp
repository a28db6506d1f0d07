//===- Compiler.cpp - compileForCpu and compileForGpu ---------------------===//

#include "indexpool/API/Compiler.h"

#include "CpuFunctionImpl.h"

#include "indexpool/Conversion/KernelManifest.h"
#include "indexpool/Conversion/Passes.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Evaluator/Evaluator.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Tooling/CpuTargetMachine.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace indexpool;
using mlir::func::FuncOp;

/// A copy of `module` whose function `name` is specialized to the fixed
/// input shapes of `options` (the other arguments keep their types).
static Status cloneForCompilation(const Module &module, const std::string &name,
                                  const CompileOptions &options,
                                  mlir::OwningOpRef<mlir::ModuleOp> &clone,
                                  FuncOp &func, FunctionSignature &signature) {
  FuncOp original;
  if (Status s = module.impl()->lookup(name, original); !s)
    return s;
  if (Status s = api::signatureOf(original, signature); !s)
    return s;
  clone = module.impl()->module->clone();
  func = clone->lookupSymbol<FuncOp>(original.getSymName());
  if (options.inputShapes.empty())
    return Status();
  std::vector<std::vector<int64_t>> shapes;
  for (auto [i, type] : llvm::enumerate(signature.arguments)) {
    std::vector<int64_t> shape = type.shape;
    for (const auto &[index, given] : options.inputShapes)
      if (index == int(i))
        shape = given;
    shapes.push_back(shape);
  }
  for (const auto &[index, given] : options.inputShapes) {
    if (index < 0 || size_t(index) >= signature.arguments.size())
      return Status::error("inputShapes: @" + signature.name + " has no argument #" +
                           std::to_string(index));
    auto type = mlir::cast<mlir::RankedTensorType>(
        func.getArgumentTypes()[size_t(index)]);
    if (!mlir::indexpool::fitsType(given, type))
      return Status::error("inputShapes: " + ref::shapeString(given) +
                           " does not fit argument #" + std::to_string(index) +
                           " of @" + signature.name);
  }
  for (const std::vector<int64_t> &shape : shapes)
    if (std::count(shape.begin(), shape.end(), -1))
      return Status::error("inputShapes: give every dynamic size of @" +
                           signature.name + " to specialize it");
  std::string error;
  if (mlir::failed(mlir::indexpool::specializeShapes(func, shapes, error)))
    return Status::error(error);
  return api::signatureOf(func, signature);
}

static std::string fileStem(llvm::StringRef name);

std::vector<CpuTargetInfo> indexpool::cpuTargets() {
  std::string error;
  const target::CpuTarget *host = mlir::indexpool::hostCpuTarget(error);
  std::vector<CpuTargetInfo> rows;
  for (const target::CpuTarget &row : target::allCpuTargets()) {
    CpuTargetInfo info;
    info.name = std::string(row.name);
    info.arch = std::string(row.arch);
    info.description = std::string(row.description);
    info.vectorWidth = int(row.vectorWidth);
    info.bf16Dot = row.bf16Dot;
    info.int8Dot = row.int8Dot;
    info.byteTable = row.byteTable128;
    info.host = &row == host;
    info.runsHere = mlir::indexpool::cpuTargetRunsHere(row, info.whyNot);
    rows.push_back(std::move(info));
  }
  return rows;
}

/// The CPU JIT's options from the API's, checked.
static Status cpuOptionsOf(const CompileOptions &options,
                           const FunctionSignature &signature,
                           mlir::indexpool::CPUJitOptions &jitOptions) {
  if (std::string rule =
          ::indexpool::target::vectorWidthRule(options.vectorWidth);
      options.vectorWidth != 0 && !rule.empty())
    return Status::error("vectorWidth: " + rule);
  if (options.threads < 0)
    return Status::error("threads must be >= 0, got " +
                         std::to_string(options.threads));
  jitOptions.vectorWidth = options.vectorWidth;
  jitOptions.cpu = options.cpu;
  jitOptions.int8Query = options.int8Query;
  jitOptions.tuningDb = options.tuningDB;
  jitOptions.fuse = options.fuse;
  jitOptions.checkBounds = options.checkBounds;
  jitOptions.toolName = "indexpool";
  jitOptions.passManagerCLOptions = false;
  for (int index : options.inPlaceArguments) {
    if (index < 0 || size_t(index) >= signature.arguments.size())
      return Status::error("inPlaceArguments: @" + signature.name +
                           " has no argument #" + std::to_string(index));
    jitOptions.writableArguments.push_back(unsigned(index));
  }
  return Status();
}

Status indexpool::compileForCpuCode(const Module &module,
                                    const std::string &name,
                                    const CompileOptions &options,
                                    const std::string &emit,
                                    std::string &code, std::string &fileName) {
  if (emit != "obj" && emit != "asm")
    return Status::error("emit must be obj or asm, got '" + emit + "'");
  auto impl = std::make_unique<CpuFunction::Impl>();
  impl->owner = module.impl();
  api::DiagnosticCapture capture(impl->owner->context);
  if (Status s = cloneForCompilation(module, name, options, impl->module,
                                     impl->func, impl->signature);
      !s)
    return s;
  mlir::indexpool::CPUJitOptions jitOptions;
  if (Status s = cpuOptionsOf(options, impl->signature, jitOptions); !s)
    return s;
  std::string error;
  if (!mlir::indexpool::emitCpuCode(impl->func, jitOptions, emit == "asm",
                                    code, error))
    return capture.failure(error);
  fileName = fileStem(impl->signature.name) + "." +
             (options.cpu.empty() ? "host" : options.cpu) +
             (emit == "asm" ? ".s" : ".o");
  return Status();
}

std::unique_ptr<CpuFunction> indexpool::compileForCpu(const Module &module,
                                                      const std::string &name,
                                                      const CompileOptions &options,
                                                      Status &status) {
  auto impl = std::make_unique<CpuFunction::Impl>();
  impl->owner = module.impl();
  api::DiagnosticCapture capture(impl->owner->context);
  status = cloneForCompilation(module, name, options, impl->module, impl->func,
                               impl->signature);
  if (!status)
    return nullptr;
  impl->func->walk([&](mlir::Operation *op) {
    if (mlir::isa<mlir::indexpool::CompressPagedOp,
                  mlir::indexpool::SelectPagedOp,
                  mlir::indexpool::AppendPagedOp,
                  mlir::indexpool::RefinePagedOp>(op))
      impl->checksValues = true;
  });
  mlir::indexpool::CPUJitOptions jitOptions;
  status = cpuOptionsOf(options, impl->signature, jitOptions);
  if (!status)
    return nullptr;
  std::string error;
  impl->jit =
      mlir::indexpool::CPUJitFunction::compile(impl->func, jitOptions, error);
  if (!impl->jit) {
    status = capture.failure(error);
    return nullptr;
  }
  impl->jit->setThreads(options.threads);
  status = Status();
  return makeCpuFunction(std::move(impl));
}

/// A function name as one file name in a folder: a symbol name may be any
/// string ("../x", "a/b"). Bytes outside [A-Za-z0-9_.+-], '%' and a leading
/// '.' become %XX, so that no name leaves the folder, hides the file or
/// collides with another name.
static std::string fileStem(llvm::StringRef name) {
  // '%' alone, not followed by two hex digits: no other name maps here.
  if (name.empty())
    return "%";
  std::string stem;
  for (auto [i, c] : llvm::enumerate(name)) {
    if (llvm::isAlnum(c) || (c == '.' && i > 0) ||
        llvm::StringRef("_+-").contains(c)) {
      stem += c;
      continue;
    }
    stem += '%';
    stem += llvm::hexdigit((static_cast<unsigned char>(c) >> 4) & 15);
    stem += llvm::hexdigit(static_cast<unsigned char>(c) & 15);
  }
  return stem;
}

/// Checks the GPU block-size options: threadsPerBlock follows the one rule
/// (target::threadsPerBlockRule) and does not compete with a tuning DB.
static Status checkThreadsPerBlock(const CompileOptions &options) {
  if (options.threadsPerBlock == 0)
    return Status();
  std::string rule =
      ::indexpool::target::threadsPerBlockRule(options.threadsPerBlock);
  if (!rule.empty()) {
    // The rule names the command-line option; say the field's name.
    llvm::StringRef option = "threads-per-block";
    if (llvm::StringRef(rule).starts_with(option))
      rule = "threadsPerBlock" + rule.substr(option.size());
    return Status::error(rule);
  }
  if (!options.tuningDB.empty())
    return Status::error("tuningDB and threadsPerBlock both choose the block "
                         "sizes: give one of them");
  return Status();
}

Status indexpool::compileForGpu(const Module &module, const std::string &name,
                                const std::string &chip,
                                const CompileOptions &options,
                                GpuArtifact &artifact) {
  api::DiagnosticCapture capture(module.impl()->context);
  mlir::OwningOpRef<mlir::ModuleOp> clone;
  FuncOp func;
  FunctionSignature signature;
  if (Status s =
          cloneForCompilation(module, name, options, clone, func, signature);
      !s)
    return s;
  if (options.binaryFormat != "ptx" && options.binaryFormat != "cubin")
    return Status::error("binaryFormat must be ptx or cubin, got '" +
                         options.binaryFormat + "'");
  if (Status s = checkThreadsPerBlock(options); !s)
    return s;
  std::string error;
  mlir::FailureOr<mlir::indexpool::GPUPipelineOptions> pipeline =
      mlir::indexpool::gpuPipelineOptionsFor(chip, error);
  if (mlir::failed(pipeline))
    return Status::error(error);
  pipeline->format = options.binaryFormat == "cubin" ? "bin" : "isa";
  pipeline->fuse = options.fuse;
  pipeline->tuningDb = options.tuningDB;
  pipeline->tensorCores = options.tensorCores;
  if (options.threadsPerBlock != 0) {
    // An explicit block size replaces the chip's configuration.
    pipeline->threadsPerBlock = options.threadsPerBlock;
    pipeline->configureUnconfigured = false;
  }
  if (const char *cuda = std::getenv("CUDA_HOME"); cuda && *cuda)
    pipeline->cudaToolkit = cuda;
  std::string binaryName =
      fileStem(signature.name) + "." + chip +
      (options.binaryFormat == "cubin" ? ".cubin" : ".ptx");
  mlir::FailureOr<mlir::indexpool::GPUCompilation> compiled =
      mlir::indexpool::compileForGPU(*clone, func, *pipeline, binaryName,
                                     error);
  if (mlir::failed(compiled))
    return capture.failure(error);
  artifact.chip = chip;
  artifact.binaryName = binaryName;
  artifact.binary = std::move(compiled->binary);
  artifact.manifest =
      llvm::formatv("{0:2}", llvm::json::Value(std::move(compiled->manifest)))
          .str() +
      "\n";
  artifact.moduleText.clear();
  if (options.keepModuleText) {
    llvm::raw_string_ostream os(artifact.moduleText);
    compiled->module->print(os);
  }
  return Status();
}

static Status writeFile(llvm::StringRef path, const std::string &bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return Status::error("cannot write " + path.str() + ": " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error()) {
    // Cleared, or the stream's destructor would end the process.
    ec = os.error();
    os.clear_error();
    return Status::error("cannot write " + path.str() + ": " + ec.message());
  }
  return Status();
}

Status indexpool::saveGpuArtifact(const GpuArtifact &artifact,
                                  const std::string &directory,
                                  std::string *binaryPath,
                                  std::string *manifestPath) {
  // A name of compileForGpu is always one file name; one set by hand must
  // be too, or the files would land outside `directory`.
  llvm::StringRef name = artifact.binaryName;
  if (name.empty() || name == "." || name == ".." ||
      name.find_first_of("/\\") != llvm::StringRef::npos)
    return Status::error("binaryName '" + artifact.binaryName +
                         "' is not a file name");
  std::string dir = directory.empty() ? "." : directory;
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return Status::error("cannot create " + dir + ": " + ec.message());
  size_t dot = name.rfind('.');
  llvm::StringRef stem =
      dot == llvm::StringRef::npos ? name : name.take_front(dot);
  llvm::SmallString<256> binary(dir), manifest(dir);
  llvm::sys::path::append(binary, name);
  llvm::sys::path::append(manifest, stem + ".json");
  if (Status s = writeFile(binary, artifact.binary); !s)
    return s;
  if (Status s = writeFile(manifest, artifact.manifest); !s)
    return s;
  if (binaryPath)
    *binaryPath = binary.str().str();
  if (manifestPath)
    *manifestPath = manifest.str().str();
  return Status();
}
