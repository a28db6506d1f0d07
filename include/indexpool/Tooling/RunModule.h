//===- RunModule.h - indexpool-run as a function ----------------*- C++ -*-===//
//
// Compiles one function of an IndexPool module and runs it, as
// iree-run-module's tooling/run_module.c does for IREE: parse and verify the
// module, check the function's signature, load or draw the inputs, predict
// the result shapes with the float64 reference evaluator (which validates
// every dynamic size before any compiled code runs), run on the CPU (JIT,
// CPUJit.h), the GPU emulator or CUDA, and report the results
// (ToolSupport/Report.h).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TOOLING_RUNMODULE_H
#define INDEXPOOL_TOOLING_RUNMODULE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::indexpool {

/// indexpool-run's command line (its --help says what each does).
struct RunModuleOptions {
  /// The program of the error lines ("TOOL: error: ...").
  std::string toolName = "indexpool-run";
  /// The .mlir file ("-": standard input).
  std::string inputFilename;
  /// --function: the func.func to run, with or without the @.
  std::string functionName;
  /// --input=@FILE.npy, one per argument.
  std::vector<std::string> inputFiles;
  /// --random-inputs=SEED.
  std::optional<uint64_t> randomSeed;
  /// --input-shape=I:AxBxC (with --random-inputs).
  std::vector<std::string> inputShapes;
  /// --output=@FILE.npy, none or one per result.
  std::vector<std::string> outputFiles;
  /// cpu, cuda or gpu-emulator.
  std::string device = "cpu";
  /// The GPU of --device=cuda and gpu-emulator.
  std::string chip = "sm_90";
  bool verify = false;
  /// --benchmark=N: timed runs after the first.
  unsigned benchmarkRuns = 0;
  /// --cpu=NAME: the CPU target (Target/CpuTargets.h); "": the host's.
  std::string cpu;
  /// f32 lanes of the CPU loops' vectors (a power of two); 0: the CPU
  /// target's.
  int64_t vectorWidth = 0;
  /// --int8-query: i8 / i4 keys scored with the int8 dot of a quantized
  /// query (docs/design.md, CPU targets); not with --verify.
  bool int8Query = false;
  /// --tuning-db=FILE (--device=cpu): the CPU entries' vector widths.
  std::string tuningDb;
  bool fuse = true;
  bool checkBounds = false;
  /// --tensor-cores (--device=cuda and gpu-emulator): the scores on the
  /// tensor cores where the shapes allow; unset: on (an error with
  /// --device=cpu when set).
  std::optional<bool> tensorCores;
};

/// Runs `options.functionName` of `options.inputFilename` as indexpool-run
/// does. Returns the exit code: 0, or 1 after the one line "TOOL: error:
/// ..." (the IR's own diagnostics print before it, with their locations).
int runModule(const RunModuleOptions &options);

} // namespace mlir::indexpool

#endif // INDEXPOOL_TOOLING_RUNMODULE_H
