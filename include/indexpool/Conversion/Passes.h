//===- Passes.h - indexpool lowerings and pipelines -------------*- C++ -*-===//
#ifndef INDEXPOOL_CONVERSION_PASSES_H
#define INDEXPOOL_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class OpPassManager;
namespace arith { class ArithDialect; }
namespace bufferization { class BufferizationDialect; }
namespace math { class MathDialect; }
namespace memref { class MemRefDialect; }
namespace scf { class SCFDialect; }
namespace vector { class VectorDialect; }
} // namespace mlir

namespace mlir::indexpool {

#define GEN_PASS_DECL
#include "indexpool/Dialect/ConversionPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "indexpool/Dialect/ConversionPasses.h.inc"

/// Options of the `indexpool-to-cpu` pipeline.
struct CPUPipelineOptions {
  int64_t vectorWidth = 8;
};

/// indexpool ops on tensors -> loops -> one-shot bufferization -> LLVM
/// dialect, runnable by mlir-runner and mlir::ExecutionEngine.
void buildIndexPoolToCPUPipeline(OpPassManager &pm,
                                 const CPUPipelineOptions &options = {});

/// Registers `--indexpool-to-cpu`.
void registerIndexPoolPipelines();

} // namespace mlir::indexpool

#endif // INDEXPOOL_CONVERSION_PASSES_H
