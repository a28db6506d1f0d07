//===- GPUPipeline.cpp - the indexpool-to-nvvm pipeline -------------------===//
//
// indexpool ops -> fused GPU kernels (IndexPoolToGPUKernels) and the same
// row loops as the CPU for the rest (IndexPoolToLoops, without per-row stack
// scopes) -> one-shot bufferization -> row loops tiled by the
// block size and mapped to blocks x threads -> outlined gpu.func kernels,
// merged into one gpu.module with PTX names, launches of empty ops dropped
// and grids checked (--indexpool-merge-kernel-modules) -> NVVM -> one
// gpu.binary with PTX or cubin for one chip (without kernels when every op
// is empty).
//
// compress, score, topk and expand (and so select) become the fused kernels
// of --indexpool-to-gpu-kernels; the other ops, and shapes those kernels do
// not cover, take the straightforward path: one thread per row (pool group,
// key row, query row), the loops over D vectorized as on the CPU.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"
#include "indexpool/Target/Chips.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

// The first PTX ISA with mma.sync m16n8k32 on e4m3.
static constexpr int kFp8MmaPtxVersion = 84;

void mlir::indexpool::buildIndexPoolToNVVMPipeline(
    OpPassManager &pm, const GPUPipelineOptions &options) {
  pm.addPass(createConvertElementwiseToLinalgPass());
  // The fused kernels first; what they do not cover becomes row loops.
  IndexPoolToGPUKernelsOptions kernels;
  kernels.chip = options.chip;
  kernels.threadsPerBlock = options.threadsPerBlock;
  kernels.tensorCores = options.tensorCores;
  pm.addPass(createIndexPoolToGPUKernels(kernels));
  IndexPoolToLoopsOptions loops;
  loops.vectorWidth = options.vectorWidth;
  // Every row becomes one GPU thread: no loop around a row's scratch.
  loops.stackScopes = false;
  // A row's scratch must have a static size: a dynamic D would put it in
  // local memory of unbounded size (refused at the op).
  loops.staticScratch = true;
  pm.addPass(createIndexPoolToLoops(loops));
  // Until the loops are mapped to the GPU only CSE: the canonicalizer would
  // inline single-iteration parallel loops (M = 1 rows), which would then
  // run on the host.
  pm.addPass(createCSEPass());

  // No deallocation pipeline: every buffer of the host function is device
  // memory owned by the runtime that launches the kernels (manifest).
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCSEPass());

  // Rows of threads, one row per thread; the block size is the
  // op's #indexpool.launch (--indexpool-configure) or `threadsPerBlock`.
  // No canonicalizer before the mapping: it would merge the two loops into
  // one 2-d loop.
  IndexPoolTileRowsOptions tile;
  tile.threadsPerBlock = options.threadsPerBlock;
  pm.addPass(createIndexPoolTileRows(tile));
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addPass(createConvertParallelLoopToGpuPass());
  pm.addPass(createCanonicalizerPass());
  // Constants go into the kernels, not through their parameters.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  // Buffers of dynamic size cross into kernels as pointer + sizes: one
  // binary serves every size.
  pm.addPass(createIndexPoolKernelSizeParams());
  // Outlining that keeps a launch's blocks-per-SM hint (nvvm.minctasm).
  pm.addPass(createIndexPoolOutlineKernels());
  pm.addPass(createIndexPoolMergeKernelModules());
  IndexPoolCheckKernelLimitsOptions limits;
  limits.chip = options.chip;
  pm.addPass(createIndexPoolCheckKernelLimits(limits));
  // Before anything records the kernels' parameters (alignment, manifest).
  pm.addPass(createIndexPoolDropEmptyKernelArgs());
  // While the kernels still hold their vector accesses (for the manifest).
  pm.addPass(createIndexPoolRecordParamAlignment());
  pm.addNestedPass<gpu::GPUModuleOp>(createIndexPoolAlignSharedBuffers());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createCanonicalizerPass());

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  // The FP8 mma.sync (tensor cores, FP8 query and keys, sm_89+) needs PTX
  // ISA 8.4: LLVM cannot select it below that.
  int ptxVersion = options.ptxVersion;
  const ::indexpool::target::ChipInfo *chip =
      ::indexpool::target::lookupChip(options.chip);
  if (options.tensorCores && chip && chip->computeCapability >= 89)
    ptxVersion = std::max(ptxVersion, kFp8MmaPtxVersion);
  target.features = "+ptx" + std::to_string(ptxVersion);
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addNestedPass<gpu::GPUModuleOp>(createIndexPoolLowerVectorMasks());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  // Kernels take plain pointers: what a runtime outside MLIR passes.
  nvvm.useBarePtrCallConv = true;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(nvvm));
  // NVVM ops without an LLVM intrinsic (wgmma.mma_async) as inline PTX.
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());

  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.cudaToolkit;
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

FailureOr<mlir::indexpool::GPUPipelineOptions>
mlir::indexpool::gpuPipelineOptionsFor(StringRef chip, std::string &error) {
  namespace target = ::indexpool::target;
  const target::ChipInfo *info = target::lookupChip(chip);
  if (!info) {
    error = chip.empty() ? "no chip given; known chips: " +
                               target::knownChipNames()
                         : target::unknownChipMessage(chip.str());
    return failure();
  }
  GPUPipelineOptions options;
  options.chip = std::string(info->name);
  options.ptxVersion = info->ptxVersion;
  return options;
}

/// The chips of the target table (lib/Target/Chips.cpp), for --help.
static llvm::StringRef chipHelp() {
  static const std::string help =
      "Target GPU: " + ::indexpool::target::knownChipNames();
  return help;
}

namespace {
struct GPUPipelineCLOptions
    : public PassPipelineOptions<GPUPipelineCLOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc(chipHelp())};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (PTX), bin (cubin) or fatbin"),
      llvm::cl::init("isa")};
  Option<int> ptxVersion{
      *this, "ptx",
      llvm::cl::desc("PTX ISA version, e.g. 80 (default: the chip's, from "
                     "the target table)"),
      llvm::cl::init(0)};
  Option<int64_t> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads per block of ops without an #indexpool.launch "
                     "(a multiple of 32 up to 1024)"),
      llvm::cl::init(::indexpool::target::kDefaultThreadsPerBlock)};
  Option<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("f32 lanes of the vectors used in loops over D"),
      llvm::cl::init(8)};
  Option<bool> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("The scores on the tensor cores (mma.sync; logits not "
                     "bit-identical to the CPU's; false: the CUDA-core "
                     "kernels, which are)"),
      llvm::cl::init(true)};
};
} // namespace

/// The checked options of a textual `indexpool-to-nvvm{...}`, or the one
/// line that says what is wrong with them.
static FailureOr<mlir::indexpool::GPUPipelineOptions>
checkPipelineOptions(const GPUPipelineCLOptions &cl, std::string &error) {
  FailureOr<mlir::indexpool::GPUPipelineOptions> chipOptions =
      mlir::indexpool::gpuPipelineOptionsFor(cl.chip, error);
  if (failed(chipOptions))
    return failure();
  mlir::indexpool::GPUPipelineOptions options = *chipOptions;
  auto fail = [&](const Twine &why) {
    error = why.str();
    return failure();
  };
  options.format = cl.format;
  if (options.format != "isa" && options.format != "bin" &&
      options.format != "fatbin")
    return fail("format must be isa, bin or fatbin, got '" + options.format +
                "'");
  if (cl.ptxVersion) {
    // LLVM would ignore an unknown version with a warning per kernel module
    // and emit its default one.
    if (!::indexpool::target::isPtxVersion(cl.ptxVersion) ||
        cl.ptxVersion < options.ptxVersion)
      return fail("ptx=" + Twine(cl.ptxVersion) +
                  " is not a PTX ISA version for " + options.chip + ": use " +
                  Twine(options.ptxVersion) + " (the default) up to " +
                  Twine(::indexpool::target::kNewestPtxVersion));
    options.ptxVersion = cl.ptxVersion;
  }
  if (std::string rule =
          ::indexpool::target::threadsPerBlockRule(cl.threadsPerBlock);
      !rule.empty())
    return fail(rule);
  options.threadsPerBlock = cl.threadsPerBlock;
  // The rule of --indexpool-to-loops, checked here so that the error comes
  // before the pipeline runs.
  if (std::string rule = ::indexpool::target::vectorWidthRule(cl.vectorWidth);
      !rule.empty())
    return fail(rule);
  options.vectorWidth = cl.vectorWidth;
  options.tensorCores = cl.tensorCores;
  if (const char *cuda = std::getenv("CUDA_HOME"))
    options.cudaToolkit = cuda;
  return options;
}

namespace {
/// Stands for a pipeline whose options are wrong: fails before any IR is
/// touched with the one line that says why. Failing in the pipeline builder
/// instead would add a second line from MLIR's textual pipeline parser
/// ("failed to add `indexpool-to-nvvm` with options ...").
struct RejectPipelineOptions
    : public PassWrapper<RejectPipelineOptions, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RejectPipelineOptions)
  explicit RejectPipelineOptions(std::string message)
      : message(std::move(message)) {}
  StringRef getArgument() const override {
    return "indexpool-to-nvvm-options";
  }
  LogicalResult initialize(MLIRContext *context) override {
    return emitError(UnknownLoc::get(context)) << message;
  }
  void runOnOperation() override {}
  std::string message;
};
} // namespace

void mlir::indexpool::registerIndexPoolGPUPipeline() {
  // registerPassPipeline rather than PassPipelineRegistration: an unknown
  // chip or format must fail with a message, not build a broken pipeline.
  registerPassPipeline(
      "indexpool-to-nvvm",
      "Compile indexpool functions for an NVIDIA GPU: row loops mapped to "
      "blocks and threads, outlined kernels, NVVM, and a gpu.binary with PTX "
      "or cubin (ptxas from CUDA_HOME)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        GPUPipelineCLOptions cl;
        if (failed(cl.parseFromString(text)))
          return failure();
        std::string error;
        FailureOr<mlir::indexpool::GPUPipelineOptions> options =
            checkPipelineOptions(cl, error);
        if (failed(options))
          pm.addPass(std::make_unique<RejectPipelineOptions>(
              "indexpool-to-nvvm: " + error));
        else
          mlir::indexpool::buildIndexPoolToNVVMPipeline(pm, *options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(GPUPipelineCLOptions());
      });
}
