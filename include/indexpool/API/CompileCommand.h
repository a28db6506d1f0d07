//===- CompileCommand.h - indexpool-compile as a call -----------*- C++ -*-===//
//
// What indexpool-compile does, for a program that has the same arguments:
// read an .mlir file, compile its public functions (or one) for a GPU chip
// (compileForGpu) and write each one's kernels and manifest
// (saveGpuArtifact, docs/manifest.md), or the compiled module. The command
// line is read by readCompileCommandLine (ToolSupport/Flags.h).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_API_COMPILECOMMAND_H
#define INDEXPOOL_API_COMPILECOMMAND_H

#include "indexpool/API/Status.h"

#include <optional>
#include <string>
#include <vector>

namespace indexpool {

struct CompileCommand {
  /// FILE.mlir, or "-" for stdin.
  std::string input;
  /// "gpu" (kernels and a manifest for `chip`) or "cpu" (an object file or
  /// assembly for the CPU target `cpu`).
  std::string target = "gpu";
  /// The chip (Target/Chips.h: sm_80 ... sm_120).
  std::string chip;
  /// The CPU target (Target/CpuTargets.h); "": the host's.
  std::string cpu;
  /// CPU: i8 / i4 keys scored with the int8 dot of a quantized query.
  bool int8Query = false;
  /// The folder written (created).
  std::string outputDir;
  /// GPU: ptx or cubin (the binary next to each manifest), or mlir (the
  /// compiled module, no manifest); CPU: obj or asm. Empty: ptx, obj.
  std::string emit;
  /// One function; empty: every public function.
  std::string function;
  /// I:AxBxC: `function` specialized for these argument shapes.
  std::vector<std::string> inputShapes;
  /// Threads per block of every kernel instead of the chip's configuration.
  std::optional<int> threadsPerBlock;
  std::string tuningDb;
  bool fuse = true;
  bool tensorCores = true;
  /// Every function is compiled even when one fails; the failures are
  /// reported together, each as a line "error: @NAME: MESSAGE" after its
  /// diagnostics.
  bool keepGoing = false;
};

/// indexpool-compile's argv into `command`: std::nullopt to go on, else the
/// exit code to return (0 after --help or --version, 1 after the one
/// error line).
std::optional<int> readCompileCommandLine(int argc, const char *const *argv,
                                          CompileCommand &command);

/// Runs `command`; `written` gets one line per function ("wrote BINARY and
/// MANIFEST", or the module's path). A failure's message is a one-line
/// summary, then the compiler's diagnostics, one per line.
Status runCompileCommand(const CompileCommand &command,
                         std::vector<std::string> &written);

} // namespace indexpool

#endif // INDEXPOOL_API_COMPILECOMMAND_H
