//===- CPUPipeline.cpp - the indexpool-to-cpu pipeline --------------------===//
//
// indexpool ops -> loops on buffers (IndexPoolToLoops) -> one-shot
// bufferization of everything else -> buffer deallocation -> OpenMP for the
// scf.parallel row loops -> LLVM dialect.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"
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
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::indexpool::buildIndexPoolToCPUPipeline(
    OpPassManager &pm, const CPUPipelineOptions &options) {
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
    pm.addPass(createIndexPoolToGPUKernels(kernels));
    IndexPoolEmulateGPUKernelsOptions first;
    first.beforeDeallocation = true;
    pm.addPass(createIndexPoolEmulateGPUKernels(first));
  }
  IndexPoolToLoopsOptions loops;
  loops.vectorWidth = options.vectorWidth;
  pm.addPass(createIndexPoolToLoops(loops));
  pm.addPass(createCanonicalizerPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Callers (the JIT, mlir-runner) see plain contiguous memrefs.
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  // Returned arguments are cloned so that callers own every result.
  pm.addPass(createConvertBufferizationToMemRefPass());
  // The teams after the deallocation pipeline, which knows neither
  // gpu.barrier nor omp.barrier.
  if (!options.emulatedGPU.empty())
    pm.addPass(createIndexPoolEmulateGPUKernels());
  // linalg.fill / copies that surrounding IR may bring become plain loops.
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());

  // Rows were distributed with scf.parallel: OpenMP runs them on all cores.
  pm.addPass(createConvertSCFToOpenMPPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  // Before scf-to-cf: memref.alloca_scope (per-row scratch, OpenMP bodies)
  // must still hold a single block when it is lowered.
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createLowerAffinePass());
  // bf16 <-> f32 as integer code with round-to-nearest-even.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createConvertVectorToLLVMPass());
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
        buildIndexPoolToCPUPipeline(pm, options);
      });
}
