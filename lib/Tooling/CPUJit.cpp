//===- CPUJit.cpp - lower a function to LLVM, JIT it, call it -------------===//

#include "indexpool/Tooling/CPUJit.h"

#include "indexpool/Conversion/Passes.h"
#include "indexpool/Dialect/IndexPoolAttrs.h"
#include "indexpool/Runtime/BufferCache.h"
#include "indexpool/Runtime/Storage.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Tooling/CpuTargetMachine.h"
#include "indexpool/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#ifndef INDEXPOOL_LIBOMP_PATH
#error "INDEXPOOL_LIBOMP_PATH must name the OpenMP runtime (set by CMake)"
#endif

using namespace mlir;
using namespace mlir::indexpool;
using ref::ElementType;
using ref::HostTensor;
namespace runtime = ::indexpool::runtime;

void mlir::indexpool::registerCPUJitTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

//===----------------------------------------------------------------------===//
// Buffers and memref descriptors
//===----------------------------------------------------------------------===//

/// A 64-byte aligned host buffer holding one input in its storage format.
class CPUJitFunction::AlignedBuffer {
public:
  explicit AlignedBuffer(size_t bytes)
      : bytes(bytes), data(std::aligned_alloc(
                          64, std::max<size_t>(64, (bytes + 63) / 64 * 64))) {}
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;

  size_t bytes;
  void *data;
};

/// A ranked memref descriptor for a contiguous row-major buffer:
/// {allocated, aligned, offset, sizes[rank], strides[rank]}.
static std::vector<int64_t> makeDescriptor(void *data,
                                           ArrayRef<int64_t> shape) {
  std::vector<int64_t> descriptor(3 + 2 * shape.size());
  descriptor[0] = int64_t(reinterpret_cast<intptr_t>(data));
  descriptor[1] = descriptor[0];
  descriptor[2] = 0;
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    descriptor[3 + d] = shape[d];
    descriptor[3 + shape.size() + d] = stride;
    stride *= shape[d];
  }
  return descriptor;
}

//===----------------------------------------------------------------------===//
// Lowering and JIT compilation
//===----------------------------------------------------------------------===//

/// Keeps `target` and every symbol it references (transitively); erases the
/// other functions, so that unrelated functions cannot break the lowering.
static void pruneModule(ModuleOp module, func::FuncOp target) {
  llvm::SmallPtrSet<Operation *, 8> keep;
  SmallVector<Operation *> worklist{target};
  keep.insert(target);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    op->walk([&](Operation *nested) {
      auto uses = SymbolTable::getSymbolUses(nested);
      if (!uses)
        return;
      for (const SymbolTable::SymbolUse &use : *uses) {
        Operation *symbol =
            SymbolTable::lookupNearestSymbolFrom(nested, use.getSymbolRef());
        if (symbol && keep.insert(symbol).second)
          worklist.push_back(symbol);
      }
    });
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!keep.count(func))
      func.erase();
}

/// The "TOOL" of the emulator's team-mismatch message (set by compile()).
static std::string teamMismatchTool = "indexpool-run";

/// Called by emulated GPU code when OpenMP gave a block another number of
/// threads than it has GPU threads: its results would be wrong.
extern "C" void teamMismatch(int32_t got, int32_t expected) {
  llvm::errs() << teamMismatchTool << ": error: the GPU emulator got " << got
               << " OpenMP threads for a block of " << expected
               << " (OMP_THREAD_LIMIT?)\n";
  std::_Exit(1);
}

/// f32 -> bf16, round to nearest even (a NaN stays a NaN, quieted, with its
/// sign): the compiler runtime's __truncsfbf2. LLVM's code generator calls
/// it for bf16 values on CPU targets without bf16 instructions (it widens
/// a bf16 vector select to f32 and narrows it back), and Debian 12's libgcc
/// (GCC 12) does not have it: the JIT binds this one. AOT objects
/// (indexpool-compile --target=cpu) link it from compiler-rt or libgcc 13+.
extern "C" __bf16 indexpoolTruncSfBf2(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint16_t narrow =
      (bits & 0x7fffffffu) > 0x7f800000u
          ? uint16_t((bits >> 16) | 0x40u)
          : uint16_t((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  __bf16 result;
  std::memcpy(&result, &narrow, sizeof(result));
  return result;
}

CPUJitFunction::CPUJitFunction(std::unique_ptr<ExecutionEngine> engine,
                               std::string name,
                               std::vector<int64_t> resultRanks)
    : engine(std::move(engine)), name(std::move(name)),
      resultRanks(std::move(resultRanks)) {}

CPUJitFunction::~CPUJitFunction() { releaseResults(); }

bool mlir::indexpool::lowerForCpu(func::FuncOp func,
                                   const CPUJitOptions &options, bool toRun,
                                   CpuLowering &lowering, std::string &error) {
  MLIRContext *context = func->getContext();
  StringRef name = func.getSymName();
  auto module = func->getParentOfType<ModuleOp>();
  if (!module) {
    error = "@" + name.str() + " is not inside a module";
    return false;
  }
  // The CPU target first: one this host cannot run (when it is to run
  // here) is refused before anything is compiled.
  lowering.cpu = resolveCpuTarget(options.cpu, toRun, error);
  if (!lowering.cpu)
    return false;
  const CpuTarget &cpu = *lowering.cpu;
  lowering.machine = makeCpuTargetMachine(cpu, /*forJit=*/toRun, error);
  if (!lowering.machine)
    return false;
  // Lower a copy of the function (and what it references) to LLVM.
  OwningOpRef<ModuleOp> lowered = module.clone();
  auto loweredFunc = lowered->lookupSymbol<func::FuncOp>(name);
  pruneModule(*lowered, loweredFunc);
  loweredFunc->setAttr("llvm.emit_c_interface", UnitAttr::get(context));
  // Inputs are read-only, except those the caller lets the compiled code
  // update in place.
  for (unsigned i = 0, e = loweredFunc.getNumArguments(); i < e; ++i)
    loweredFunc.setArgAttr(
        i, "bufferization.writable",
        BoolAttr::get(context,
                      llvm::is_contained(options.writableArguments, i)));
  PassManager pm(context, ModuleOp::getOperationName());
  if (options.passManagerCLOptions && failed(applyPassManagerCLOptions(pm))) {
    error = "bad pass manager options";
    return false;
  }
  bool emulateGPU = options.emulatedGPU.has_value();
  if (emulateGPU) {
    if (!::indexpool::target::findChip(*options.emulatedGPU, error))
      return false;
    // The emulated teams block in barriers: waiting threads must sleep, not
    // spin, with hundreds of them on a few cores. Read when libomp starts.
    setenv("KMP_BLOCKTIME", "0", /*overwrite=*/0);
  }
  if (options.fuse)
    pm.addNestedPass<func::FuncOp>(createIndexPoolFuse());
  CPUPipelineOptions pipelineOptions;
  pipelineOptions.vectorWidth =
      options.vectorWidth ? options.vectorWidth : cpu.vectorWidth;
  pipelineOptions.cpu = std::string(cpu.name);
  pipelineOptions.int8Query = options.int8Query;
  pipelineOptions.tuningDb = options.tuningDb;
  pipelineOptions.checkBounds = options.checkBounds;
  pipelineOptions.toolName = options.toolName;
  // Results are freed unless they are an argument (callOnBuffers, call):
  // the pages updated in place come back as the caller's buffer.
  pipelineOptions.returnArguments = !options.writableArguments.empty();
  if (emulateGPU) {
    pipelineOptions.emulatedGPU = *options.emulatedGPU;
    pipelineOptions.emulatedTensorCores = options.tensorCores;
    pipelineOptions.configureEmulatedGPU = !hasLaunchConfiguration(loweredFunc);
  }
  buildIndexPoolToCPUPipeline(pm, pipelineOptions);
  if (failed(pm.run(*lowered))) {
    error = "lowering @" + name.str() +
            " to the CPU failed (see the diagnostics)";
    return false;
  }
  lowering.module = std::move(lowered);
  return true;
}

std::unique_ptr<CPUJitFunction>
CPUJitFunction::compile(func::FuncOp func, const CPUJitOptions &options,
                        std::string &error) {
  StringRef name = func.getSymName();
  std::vector<int64_t> resultRanks;
  for (Type type : func.getResultTypes())
    resultRanks.push_back(cast<RankedTensorType>(type).getRank());
  CpuLowering lowering;
  if (!lowerForCpu(func, options, /*toRun=*/true, lowering, error))
    return nullptr;
  OwningOpRef<ModuleOp> &lowered = lowering.module;
  std::unique_ptr<llvm::TargetMachine> &machine = lowering.machine;

  // JIT-compile at O3 for the CPU target, with libomp for the OpenMP row
  // loops.
  StringRef libomp = INDEXPOOL_LIBOMP_PATH;
  if (!llvm::sys::fs::exists(libomp)) {
    error = "the OpenMP runtime " + libomp.str() +
            " is missing (compiled CPU code runs its loops on OpenMP "
            "threads)";
    return nullptr;
  }
  SmallVector<StringRef> sharedLibs{libomp};
  // memrefCopy of strided views; only needed (and only looked for) when the
  // function's tensor code copies one.
  StringRef runnerUtils = INDEXPOOL_C_RUNNER_UTILS_PATH;
  bool copiesViews = false;
  lowered->walk([&](LLVM::CallOp call) {
    copiesViews |= call.getCallee() == StringRef("memrefCopy");
  });
  if (copiesViews) {
    if (!llvm::sys::fs::exists(runnerUtils)) {
      error = "the MLIR runtime library " + runnerUtils.str() +
              " is missing (the function copies strided tensor slices)";
      return nullptr;
    }
    sharedLibs.push_back(runnerUtils);
  }
  // The optimizer sees the target too (its cost model, vector widths).
  auto transformer = makeOptimizingTransformer(/*optLevel=*/3,
                                               /*sizeLevel=*/0, machine.get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.sharedLibPaths = sharedLibs;
  // MLIR's default writes a perf jitdump file per process (under
  // $JITDUMPDIR, ~/.debug or /tmp/.debug) for every compilation: a cost
  // and files nobody asked for. Only when asked (docs/embedding.md).
  engineOptions.enablePerfNotificationListener =
      std::getenv("INDEXPOOL_PERF_JITDUMP") != nullptr;
  auto engineOrError =
      ExecutionEngine::create(*lowered, engineOptions, std::move(machine));
  if (!engineOrError) {
    error = "JIT compilation of @" + name.str() +
            " failed: " + llvm::toString(engineOrError.takeError());
    return nullptr;
  }
  std::unique_ptr<ExecutionEngine> engine = std::move(*engineOrError);
  teamMismatchTool = options.toolName;
  // Results are allocated through the buffer cache, so that repeated calls
  // (--benchmark) reuse their output buffers instead of faulting in fresh
  // pages every time.
  engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("malloc")] = {
        llvm::orc::ExecutorAddr::fromPtr(&indexpool_cached_malloc),
        llvm::JITSymbolFlags::Exported};
    symbols[interner("free")] = {
        llvm::orc::ExecutorAddr::fromPtr(&indexpool_cached_free),
        llvm::JITSymbolFlags::Exported};
    symbols[interner("__truncsfbf2")] = {
        llvm::orc::ExecutorAddr::fromPtr(&indexpoolTruncSfBf2),
        llvm::JITSymbolFlags::Exported};
    symbols[interner("indexpool_gpu_emulator_team_mismatch")] = {
        llvm::orc::ExecutorAddr::fromPtr(&teamMismatch),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  engine->initialize();
  return std::unique_ptr<CPUJitFunction>(new CPUJitFunction(
      std::move(engine), "_mlir_ciface_" + name.str(), std::move(resultRanks)));
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

void CPUJitFunction::setInputs(ArrayRef<HostTensor> inputs) {
  buffers.clear();
  descriptors.clear();
  for (const HostTensor &input : inputs) {
    buffers.push_back(std::make_unique<AlignedBuffer>(
        size_t(input.numElements() * ref::elementTypeBytes(input.type))));
    runtime::storeTensor(input, static_cast<char *>(buffers.back()->data));
    descriptors.push_back(makeDescriptor(buffers.back()->data, input.shape));
  }
}

void CPUJitFunction::setThreads(int count) { threads = count; }

LogicalResult CPUJitFunction::invoke(ArrayRef<int64_t *> argumentDescriptors,
                                     std::string &error) {
  size_t resultWords = 0;
  for (int64_t rank : resultRanks)
    resultWords += 3 + 2 * size_t(rank);
  resultDescriptors.assign(std::max<size_t>(resultWords, 1), 0);

  SmallVector<void *, 8> parameters;
  if (!resultRanks.empty())
    parameters.push_back(resultDescriptors.data());
  for (int64_t *descriptor : argumentDescriptors)
    parameters.push_back(descriptor);
  SmallVector<void *, 8> packed;
  for (void *&parameter : parameters)
    packed.push_back(&parameter);

  if (threads > 0) {
    // The setting is the calling thread's, read by the parallel regions it
    // starts. Looked up in the libomp the engine loaded: another OpenMP
    // runtime in the process (torch's libgomp) exports the same name.
    using SetNumThreads = void (*)(int);
    static auto setNumThreads = reinterpret_cast<SetNumThreads>(
        llvm::sys::DynamicLibrary::getPermanentLibrary(INDEXPOOL_LIBOMP_PATH)
            .getAddressOfSymbol("omp_set_num_threads"));
    if (setNumThreads)
      setNumThreads(threads);
  }
  if (llvm::Error err = engine->invokePacked(name, packed)) {
    error = "cannot call " + name + ": " + llvm::toString(std::move(err));
    return failure();
  }
  return success();
}

LogicalResult CPUJitFunction::callOnBuffers(ArrayRef<const void *> data,
                                            ArrayRef<ArrayRef<int64_t>> shapes,
                                            std::string &error) {
  releaseResults();
  callerDescriptors.resize(data.size());
  SmallVector<int64_t *, 8> arguments;
  for (size_t i = 0; i < data.size(); ++i) {
    std::vector<int64_t> &descriptor = callerDescriptors[i];
    size_t rank = shapes[i].size();
    descriptor.resize(3 + 2 * rank);
    // The compiled code never writes its arguments (they are not
    // bufferization.writable): the const_cast only fills the descriptor.
    int64_t address =
        int64_t(reinterpret_cast<intptr_t>(const_cast<void *>(data[i])));
    descriptor[0] = descriptor[1] = address;
    descriptor[2] = 0;
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
      descriptor[3 + d] = shapes[i][d];
      descriptor[3 + rank + d] = stride;
      stride *= shapes[i][d];
    }
    arguments.push_back(descriptor.data());
  }
  if (failed(invoke(arguments, error)))
    return failure();
  // A result that is an argument (returned as is) lives in the caller's
  // memory: only the others are freed.
  size_t at = 0;
  for (int64_t rank : resultRanks) {
    auto *allocated = reinterpret_cast<void *>(intptr_t(resultDescriptors[at]));
    at += 3 + 2 * size_t(rank);
    bool isArgument = llvm::is_contained(data, allocated);
    if (allocated && !isArgument && !llvm::is_contained(resultBuffers, allocated))
      resultBuffers.push_back(allocated);
  }
  return success();
}

CPUJitFunction::ResultView CPUJitFunction::result(unsigned i) const {
  size_t at = 0;
  for (unsigned j = 0; j < i; ++j)
    at += 3 + 2 * size_t(resultRanks[j]);
  const int64_t *descriptor = &resultDescriptors[at];
  size_t rank = size_t(resultRanks[i]);
  return {reinterpret_cast<const char *>(intptr_t(descriptor[1])),
          descriptor[2], ArrayRef<int64_t>(descriptor + 3, rank),
          ArrayRef<int64_t>(descriptor + 3 + rank, rank)};
}

void CPUJitFunction::releaseResults() {
  for (void *pointer : resultBuffers)
    indexpool_cached_free(pointer);
  resultBuffers.clear();
}

LogicalResult CPUJitFunction::call(ArrayRef<HostTensor> predicted,
                                   std::vector<HostTensor> *results,
                                   std::string &error) {
  releaseResults();
  SmallVector<int64_t *, 8> arguments;
  for (std::vector<int64_t> &descriptor : descriptors)
    arguments.push_back(descriptor.data());
  if (failed(invoke(arguments, error)))
    return failure();

  // Free every result buffer exactly once, and never an input's.
  llvm::SmallPtrSet<void *, 8> toFree;
  llvm::SmallPtrSet<void *, 8> inputs;
  for (auto &buffer : buffers)
    inputs.insert(buffer->data);
  size_t at = 0;
  LogicalResult status = success();
  for (auto [i, rank] : llvm::enumerate(resultRanks)) {
    const int64_t *descriptor = &resultDescriptors[at];
    at += 3 + 2 * size_t(rank);
    auto *allocated = reinterpret_cast<void *>(intptr_t(descriptor[0]));
    auto *aligned = reinterpret_cast<const char *>(intptr_t(descriptor[1]));
    if (allocated && !inputs.count(allocated))
      toFree.insert(allocated);
    std::vector<int64_t> shape(descriptor + 3, descriptor + 3 + rank);
    if (failed(status))
      continue;
    if (shape != predicted[i].shape) {
      error = "internal error: result #" + std::to_string(i) + " is " +
              ref::shapeString(shape) +
              ", but the reference evaluator predicts " +
              ref::shapeString(predicted[i].shape);
      status = failure();
      continue;
    }
    if (!results)
      continue;
    ElementType element = predicted[i].type;
    HostTensor t = HostTensor::zeros(element, shape);
    int64_t bytes = ref::elementTypeBytes(element);
    const int64_t *strides = descriptor + 3 + rank;
    // Strided reads: the layout the descriptor says, contiguous or not.
    std::vector<int64_t> index(size_t(rank), 0);
    for (size_t linear = 0; linear < t.data.size(); ++linear) {
      int64_t offset = descriptor[2];
      for (int64_t d = 0; d < rank; ++d)
        offset += index[size_t(d)] * strides[d];
      t.data[linear] = runtime::loadElement(aligned + offset * bytes, element);
      for (int64_t d = rank; d-- > 0;) {
        if (++index[size_t(d)] < shape[size_t(d)])
          break;
        index[size_t(d)] = 0;
      }
    }
    results->push_back(std::move(t));
  }
  // The compiled code allocated them through the buffer cache.
  for (void *pointer : toFree)
    indexpool_cached_free(pointer);
  return status;
}
