//===- indexpool-run.cpp - compile one function and run it ----------------===//
//
// Modeled on iree-run-module:
//
//   indexpool-run FILE.mlir --function=NAME [--input=@a.npy ...]
//       [--random-inputs=SEED] [--input-shape=I:AxBxC ...]
//       [--output=@out.npy ...] [--device=cpu|cuda|gpu-emulator]
//       [--chip=sm_90] [--verify] [--benchmark=N] [--vector-width=8]
//       [--tuning-db=FILE] [--check-bounds]
//
// The command line (readRunCommandLine, Tooling/RunCommandLine.h) of
// runModule (Tooling/RunModule.h), which does the work. Every bad input
// ends with one line "indexpool-run: error: ..." and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Tooling/RunCommandLine.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::indexpool::RunModuleOptions options;
  if (std::optional<int> exit =
          mlir::indexpool::readRunCommandLine(argc, argv, options))
    return *exit;
  return mlir::indexpool::runModule(options);
}
