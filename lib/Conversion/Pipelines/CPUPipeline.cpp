//===- CPUPipeline.cpp - the indexpool-to-cpu pipeline --------------------===//
//
// indexpool ops -> loops on buffers (IndexPoolToLoops) -> one-shot
// bufferization of everything else -> buffer deallocation -> OpenMP for the
// scf.parallel row loops -> LLVM dialect.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"

#include "DotInstructions.h"
#include "LoopStackScopes.h"
#include "ReturnArgumentsInPlace.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/RuntimeOpVerification.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
/// Before every vector.load / store / maskedload / maskedstore: a cf.assert
/// that its indices lie in the buffer (and, unmasked, the whole vector),
/// which upstream runtime verification does not check. Its dependent
/// dialects also register the memref models that
/// --generate-runtime-verification needs (memref.load / store indices).
struct VectorBoundsCheckPass
    : public PassWrapper<VectorBoundsCheckPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VectorBoundsCheckPass)

  StringRef getArgument() const override {
    return "indexpool-check-vector-bounds";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, cf::ControlFlowDialect,
                    memref::MemRefDialect>();
    memref::registerRuntimeVerifiableOpInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      Value base;
      OperandRange indices(nullptr, 0);
      VectorType type;
      bool masked = false;
      if (auto load = dyn_cast<vector::LoadOp>(op)) {
        base = load.getBase(), indices = load.getIndices();
        type = load.getVectorType();
      } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
        base = store.getBase(), indices = store.getIndices();
        type = store.getVectorType();
      } else if (auto load = dyn_cast<vector::MaskedLoadOp>(op)) {
        base = load.getBase(), indices = load.getIndices();
        type = load.getVectorType(), masked = true;
      } else if (auto store = dyn_cast<vector::MaskedStoreOp>(op)) {
        base = store.getBase(), indices = store.getIndices();
        type = store.getVectorType(), masked = true;
      } else {
        return;
      }
      auto memref = dyn_cast<MemRefType>(base.getType());
      if (!memref || memref.getRank() != int64_t(indices.size()))
        return;
      ImplicitLocOpBuilder b(op->getLoc(), op);
      int64_t rank = memref.getRank(), vectorRank = type.getRank();
      Value inBounds = arith::ConstantIntOp::create(b, 1, 1);
      for (int64_t d = 0; d < rank; ++d) {
        Value size = memref::DimOp::create(b, base, d);
        // The vector's dims cover the trailing memref dims (a masked
        // access may start at the end: the mask can switch off every lane);
        // unsigned comparisons also reject negative indices.
        int64_t vd = d - (rank - vectorRank);
        Value index = indices[d];
        auto predicate =
            vd >= 0 ? arith::CmpIPredicate::ule : arith::CmpIPredicate::ult;
        inBounds = arith::AndIOp::create(
            b, inBounds, arith::CmpIOp::create(b, predicate, index, size));
        if (vd >= 0 && !masked) {
          // The sum can wrap only where index > size, rejected above.
          Value end = arith::AddIOp::create(
              b, index, arith::ConstantIndexOp::create(b, type.getDimSize(vd)));
          inBounds = arith::AndIOp::create(
              b, inBounds,
              arith::CmpIOp::create(b, arith::CmpIPredicate::ule, end, size));
        }
      }
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "out-of-bounds " << op->getName() << "\nLocation: "
         << op->getLoc();
      cf::AssertOp::create(b, inBounds, b.getStringAttr(message));
    });
  }
};

/// Turns each cf.assert of the bounds checks into one error line on stderr
/// and exit code 1. The stock lowering puts() the message to stdout and
/// aborts, so a piped stdout loses it and the tool dies with a stack dump.
struct BoundsFailureExitPass
    : public PassWrapper<BoundsFailureExitPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BoundsFailureExitPass)

  explicit BoundsFailureExitPass(std::string toolName = "")
      : toolName(std::move(toolName)) {}
  std::string toolName;

  StringRef getArgument() const override {
    return "indexpool-bounds-failure-exit";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect, LLVM::LLVMDialect,
                    scf::SCFDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;
    MLIRContext *ctx = module.getContext();
    Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    // _exit, not exit: the failing access may be on an OpenMP worker thread.
    func::FuncOp write = declare(
        module, "write", FunctionType::get(ctx, {i32, ptr, i64}, {i64}));
    func::FuncOp exit =
        declare(module, "_exit", FunctionType::get(ctx, {i32}, {}));
    for (auto [n, op] : llvm::enumerate(asserts)) {
      // "ERROR: Runtime op verification failed\n^ what\nLocation: loc(..)"
      // becomes "error: bounds check failed (--check-bounds): what at
      // loc(..)".
      SmallVector<StringRef> lines;
      op.getMsg().split(lines, '\n', -1, /*KeepEmpty=*/false);
      std::string text = (toolName.empty() ? "" : toolName + ": ") +
                         "error: bounds check failed (--check-bounds):";
      for (StringRef line : lines) {
        if (line.starts_with("ERROR: Runtime op verification failed"))
          continue;
        if (line.consume_front("Location: "))
          text += " at";
        text += " " + line.ltrim("^ ").str();
      }
      text += "\n";
      ImplicitLocOpBuilder b(op.getLoc(), op);
      Value failed = arith::XOrIOp::create(
          b, op.getArg(), arith::ConstantIntOp::create(b, 1, 1));
      scf::IfOp ifOp = scf::IfOp::create(b, failed, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value message =
          LLVM::createGlobalString(b.getLoc(), b,
                                   "indexpool_bounds_message_" +
                                       std::to_string(n),
                                   text, LLVM::Linkage::Internal);
      func::CallOp::create(
          b, write,
          ValueRange{arith::ConstantIntOp::create(b, 2, 32), message,
                     arith::ConstantIntOp::create(b, text.size(), 64)});
      func::CallOp::create(b, exit,
                           ValueRange{arith::ConstantIntOp::create(b, 1, 32)});
      op.erase();
    }
  }

  static func::FuncOp declare(ModuleOp module, StringRef name,
                              FunctionType type) {
    if (auto f = module.lookupSymbol<func::FuncOp>(name))
      return f;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto f = func::FuncOp::create(b, module.getLoc(), name, type);
    f.setPrivate();
    return f;
  }
};
} // namespace

void mlir::indexpool::buildIndexPoolToCPUPipeline(
    OpPassManager &pm, const CPUPipelineOptions &options) {
  // Per-op vector widths from the tuning database, before anything
  // rewrites the ops.
  if (!options.tuningDb.empty()) {
    IndexPoolConfigureCpuOptions configure;
    configure.tuningDb = options.tuningDb;
    configure.cpu = options.cpu;
    pm.addPass(createIndexPoolConfigureCpu(configure));
  }
  // Elementwise arith / math on tensors around the indexpool ops become
  // linalg, which bufferizes.
  pm.addPass(createConvertElementwiseToLinalgPass());
  if (!options.emulatedGPU.empty()) {
    // The launch configuration the GPU would get (as in indexpool-compile):
    // the same blocks, the same groups per block.
    if (options.configureEmulatedGPU) {
      IndexPoolConfigureOptions configure;
      configure.chip = options.emulatedGPU;
      pm.addPass(createIndexPoolConfigure(configure));
    }
    IndexPoolToGPUKernelsOptions kernels;
    kernels.chip = options.emulatedGPU;
    kernels.tensorCores = options.emulatedTensorCores;
    pm.addPass(createIndexPoolToGPUKernels(kernels));
  }
  IndexPoolToLoopsOptions loops;
  loops.vectorWidth = options.vectorWidth;
  loops.cpu = options.cpu;
  loops.int8Query = options.int8Query;
  pm.addPass(createIndexPoolToLoops(loops));
  pm.addPass(createCanonicalizerPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Callers (the JIT, mlir-runner) see plain contiguous memrefs.
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  if (!options.emulatedGPU.empty()) {
    // Every kernel exists now (the paged ops' come with their in-place
    // bufferization): blocks become OpenMP teams, barriers stay calls
    // until the deallocation pipeline is done.
    IndexPoolEmulateGPUKernelsOptions first;
    first.beforeDeallocation = true;
    if (const ::indexpool::target::ChipInfo *chip =
            ::indexpool::target::lookupChip(options.emulatedGPU))
      first.smCount = chip->smCount;
    pm.addPass(createIndexPoolEmulateGPUKernels(first));
  }
  bufferization::buildBufferDeallocationPipeline(pm);
  // Returned arguments are cloned so that callers own every result, unless
  // the caller takes them back as its own buffers.
  if (options.returnArguments)
    pm.addNestedPass<func::FuncOp>(createReturnArgumentsInPlacePass());
  pm.addPass(createConvertBufferizationToMemRefPass());
  // The teams after the deallocation pipeline, which knows neither
  // gpu.barrier nor omp.barrier.
  if (!options.emulatedGPU.empty())
    pm.addPass(createIndexPoolEmulateGPUKernels());
  // linalg.fill / copies that surrounding IR may bring become plain loops.
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  // On buffers, before the loops become OpenMP regions: every access of the
  // kernels and the surrounding code is a memref or vector op here.
  if (options.checkBounds) {
    pm.addPass(std::make_unique<VectorBoundsCheckPass>());
    // Messages name the access and its location, not the whole op.
    std::unique_ptr<Pass> verification =
        createGenerateRuntimeVerificationPass();
    (void)verification->initializeOptions(
        "verbose-level=0", [](const Twine &) { return failure(); });
    pm.addPass(std::move(verification));
    pm.addPass(std::make_unique<BoundsFailureExitPass>(options.toolName));
  }

  // The score loops' bf16 pair dots become the target's instruction.
  pm.addPass(createDotInstructionsPass(options.cpu));
  // Rows were distributed with scf.parallel: OpenMP runs them on all cores.
  pm.addPass(createConvertSCFToOpenMPPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  // Each iteration of a loop frees the stack it allocated (decode loops).
  pm.addPass(createLoopStackScopesPass());
  // Before scf-to-cf: memref.alloca_scope (per-row scratch, OpenMP bodies)
  // must still hold a single block when it is lowered.
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createLowerAffinePass());
  // bf16 <-> f32 as integer code with round-to-nearest-even.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  // The score loops' blocks of dots are transposed (ScoreRows.h): 16x16
  // with AVX-512's shuffles, other sizes element by element.
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.vectorTransposeLowering =
      vector::VectorTransposeLowering::Shuffle16x16;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace {
struct CPUPipelineCLOptions
    : public PassPipelineOptions<CPUPipelineCLOptions> {
  Option<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("f32 lanes of the vectors used in loops over D"),
      llvm::cl::init(8)};
  Option<std::string> cpu{
      *this, "cpu",
      llvm::cl::desc("CPU target whose dot instructions the score loops use "
                     "(a row of --cpu's table); empty: f32 FMAs")};
  Option<bool> int8Query{
      *this, "int8-query",
      llvm::cl::desc("Score i8 and i4 keys with the CPU target's int8 dot, "
                     "the query quantized per head (approximate; "
                     "docs/design.md, CPU targets)"),
      llvm::cl::init(false)};
  Option<std::string> tuningDb{
      *this, "tuning-db",
      llvm::cl::desc("JSON tuning database: run --indexpool-configure-cpu "
                     "first, so that the ops its CPU entries match use "
                     "their entry's vector width")};
  Option<bool> checkBounds{
      *this, "check-bounds",
      llvm::cl::desc("Check every memref and vector access against its "
                     "buffer: one outside prints an error line and exits "
                     "with 1 (tests)"),
      llvm::cl::init(false)};
};
} // namespace

void mlir::indexpool::registerIndexPoolPipelines() {
  PassPipelineRegistration<CPUPipelineCLOptions>(
      "indexpool-to-cpu",
      "Lower indexpool functions to the LLVM dialect for the CPU (loops, "
      "vectors, OpenMP), runnable by mlir-runner and the JIT",
      [](OpPassManager &pm, const CPUPipelineCLOptions &cl) {
        CPUPipelineOptions options;
        options.vectorWidth = cl.vectorWidth;
        options.tuningDb = cl.tuningDb;
        options.cpu = cl.cpu;
        options.int8Query = cl.int8Query;
        options.checkBounds = cl.checkBounds;
        buildIndexPoolToCPUPipeline(pm, options);
      });
  // The pipeline's own steps, by name, for their lit tests.
  registerPass([] { return createLoopStackScopesPass(); });
  registerPass([] { return createDotInstructionsPass(); });
  registerPass([] { return createReturnArgumentsInPlacePass(); });
}
