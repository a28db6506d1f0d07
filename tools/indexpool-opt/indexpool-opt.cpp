//===- indexpool-opt.cpp - mlir-opt with the indexpool dialect ------------===//
//
// Every upstream dialect, extension and pass, the LLVM IR translations that
// gpu-module-to-binary needs, and the indexpool dialect, passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdlib>

/// Pass-option errors in one line each. While MLIR parses the pipeline, an
/// option that llvm::cl rejects is printed by llvm::cl (one line) and then
/// reported again as an empty "error:" line; other messages end in a
/// newline; and a pipeline that fails to parse adds "failed to add `pass`
/// with options ..." after the pass's own message.
static void oneLinePassOptionErrors(mlir::MlirOptMainConfig &config) {
  mlir::MlirOptMainConfig parse = config;
  config.setPassPipelineSetupFn([parse](mlir::PassManager &pm) {
    bool reported = false;
    mlir::ScopedDiagnosticHandler oneLine(
        pm.getContext(), [&](mlir::Diagnostic &diag) -> mlir::LogicalResult {
          if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
            return mlir::failure(); // to the next handler
          std::string text = diag.str();
          llvm::StringRef message = llvm::StringRef(text).trim();
          if (message.empty() ||
              (reported && message.starts_with("failed to add `")))
            return mlir::success(); // dropped
          reported = true;
          if (message.size() != text.size()) {
            mlir::Diagnostic trimmed(diag.getLocation(), diag.getSeverity());
            trimmed << llvm::Twine(message);
            diag = std::move(trimmed);
          }
          return mlir::failure();
        });
    return parse.setupPassPipeline(pm);
  });
}

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

  // MlirOptMain(argc, argv, ...) would open the input itself and read it
  // to its end: read it here with a limit (/dev/zero, an endless FIFO) and
  // hand MLIR the buffer.
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "IndexPool optimizer driver\n", registry);
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  oneLinePassOptionErrors(config);
  std::string text, error;
  if (!indexpool::runtime::readMlirInput(inputFilename, text, error)) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  if (mlir::failed(mlir::MlirOptMain(
          output->os(),
          llvm::MemoryBuffer::getMemBufferCopy(
              text, indexpool::runtime::inputBufferName(inputFilename)),
          registry, config)))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
