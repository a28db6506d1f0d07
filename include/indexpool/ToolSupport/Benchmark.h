//===- Benchmark.h - the statistics of --benchmark=N ------------*- C++ -*-===//
//
// indexpool-run and indexpool-launch time N runs after the first and print
// "median_ms=... effective_GBps=...": the median of the times and the bytes
// of all inputs and outputs over it. MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TOOLSUPPORT_BENCHMARK_H
#define INDEXPOOL_TOOLSUPPORT_BENCHMARK_H

#include "indexpool/Reference/HostTensor.h"

#include <string>
#include <vector>

namespace indexpool::tools {

/// The median of `values` (the mean of the middle two for an even count);
/// 0 for none.
double median(std::vector<double> values);

/// `bytes` moved in `milliseconds`, in GB/s (1e9 bytes); 0 when no time
/// passed.
double gigabytesPerSecond(double bytes, double milliseconds);

/// The bytes of `tensors` in their element types (what a kernel reads or
/// writes), for the effective GB/s.
double tensorBytes(const std::vector<ref::HostTensor> &tensors);

struct BenchmarkStats {
  double medianMs = 0;
  /// The bytes of all inputs and outputs over the median time.
  double gbps = 0;
  /// The fastest run: what the code takes undisturbed, to compare with a
  /// peak measured as a best of several runs (on a shared machine the
  /// median carries the neighbours' load).
  double bestMs = 0;
};

/// The statistics of `milliseconds` (one time per run) for `bytes`.
BenchmarkStats benchmarkStats(const std::vector<double> &milliseconds,
                              double bytes);

/// "median_ms=0.1234 effective_GBps=56.789 best_ms=0.1200".
std::string formatBenchmark(const BenchmarkStats &stats);

} // namespace indexpool::tools

#endif // INDEXPOOL_TOOLSUPPORT_BENCHMARK_H
