//===- indexpool-compile.cpp - kernels + manifest for a GPU ---------------===//
//
// indexpool-compile FILE.mlir --chip=sm_90 --emit=ptx|cubin|mlir -o DIR
//     [--function=NAME [--input-shape=I:AxBxC ...]] [--fuse=false]
//     [--tuning-db=FILE.json | --threads-per-block=N]
//
// For each public function, runs --indexpool-to-nvvm and
// writes DIR/NAME.CHIP.ptx or .cubin plus DIR/NAME.CHIP.json (NAME with
// %XX for bytes a file name should not hold: GpuArtifact::binaryName), the
// manifest (docs/manifest.md) that lets a runtime outside MLIR allocate the
// buffers, launch the kernels in order and check the results against the
// reference. The command line (readCompileCommandLine) of runCompileCommand
// (indexpool/API/CompileCommand.h), over the embedding API
// (indexpool/API/Compiler.h: compileForGpu, saveGpuArtifact). A function
// with dynamic shapes compiles to one binary for every size: its kernels
// take their sizes as parameters and the manifest gives buffer shapes,
// grids and size parameters as formulas of the inputs' shapes and the
// device's SM count. --input-shape specializes it for one shape instead
// (CompileOptions::inputShapes: every size relation is checked first).
//
//===----------------------------------------------------------------------===//

#include "indexpool/API/CompileCommand.h"

#include <cstdio>
#include <string>

/// A failed call: its message is a one-line summary, then the compiler's
/// diagnostics ("FILE:line:col: error: ..."), one per line. They are printed
/// first, as the summary ("... failed (see the diagnostics)") says.
static int fail(const indexpool::Status &status) {
  const std::string &message = status.message();
  size_t newline = message.find('\n');
  std::fflush(stdout);
  if (newline != std::string::npos)
    std::fprintf(stderr, "%s\n", message.c_str() + newline + 1);
  std::fprintf(stderr, "indexpool-compile: error: %s\n",
               message.substr(0, newline).c_str());
  return 1;
}

int main(int argc, char **argv) {
  indexpool::CompileCommand command;
  if (std::optional<int> exit =
          indexpool::readCompileCommandLine(argc, argv, command))
    return *exit;
  std::vector<std::string> written;
  indexpool::Status status = indexpool::runCompileCommand(command, written);
  // What was written before a failure stays reported.
  for (const std::string &line : written)
    std::printf("%s\n", line.c_str());
  return status ? 0 : fail(status);
}
