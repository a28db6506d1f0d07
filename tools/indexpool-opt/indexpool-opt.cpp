//===- indexpool-opt.cpp - mlir-opt with the indexpool dialect ------------===//
//
// Every upstream dialect, extension and pass, the LLVM IR translations that
// gpu-module-to-binary needs, and the indexpool dialect, passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::indexpool::registerIndexPoolPasses();
  mlir::indexpool::registerIndexPoolConversionPasses();
  mlir::indexpool::registerIndexPoolPipelines();
  mlir::indexpool::registerIndexPoolGPUPipeline();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::indexpool::IndexPoolDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "IndexPool optimizer driver\n", registry));
}
