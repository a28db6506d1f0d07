//===- Report.h - results, --output, --verify, --benchmark ------*- C++ -*-===//
//
// What indexpool-run and indexpool-launch do with the results of a run, in
// this order and with the same lines:
//   --output=@FILE.npy   one .npy per result (f32, f16, bf16, f8 as float32);
//   nothing else asked   "result #I (tensor<...>): v0, v1, ... (N values)";
//   --verify             "result #I (tensor<...>): max_abs_err=... -> ok";
//   --benchmark=N        "median_ms=... effective_GBps=...";
// then the error line when a result is out of tolerance. MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TOOLSUPPORT_REPORT_H
#define INDEXPOOL_TOOLSUPPORT_REPORT_H

#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Runtime/Compare.h"
#include "indexpool/ToolSupport/Benchmark.h"

#include <functional>
#include <string>
#include <vector>

namespace indexpool::tools {

/// A value as the tools print it (llvm::raw_ostream's way: "%e", "nan",
/// "INF", "-INF").
std::string formatValue(double value);

struct ReportOptions {
  /// The program of the error lines ("indexpool-run").
  std::string tool;
  /// --output: none, or one per result.
  std::vector<std::string> outputFiles;
  /// What a failed write calls the result: "result #I: WHY".
  std::string outputNoun = "result";
  bool verify = false;
  /// --benchmark=N.
  unsigned benchmarkRuns = 0;
  /// --verify: one comparison per result with the float64 reference.
  std::function<bool(std::vector<runtime::Comparison> &, std::string &)>
      compare;
  /// --benchmark: benchmarkRuns more runs, one time in milliseconds each.
  std::function<bool(std::vector<double> &, std::string &)> timeRuns;
  /// The bytes the effective GB/s counts: all inputs and outputs.
  double benchmarkBytes = 0;
  /// When set, runs after the median line (indexpool-launch's
  /// --copy-anchor prints its own line there).
  std::function<bool(const BenchmarkStats &, std::string &)> afterBenchmark;
};

/// Reports `results`, whose types print as `types`, as the options ask.
/// Returns the exit code: 0, or kErrorExitCode after the one error line.
int reportResults(const ReportOptions &options,
                  const std::vector<ref::HostTensor> &results,
                  const std::vector<std::string> &types);

} // namespace indexpool::tools

#endif // INDEXPOOL_TOOLSUPPORT_REPORT_H
