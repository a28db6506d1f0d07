//===- Benchmark.cpp - the statistics of --benchmark=N --------------------===//

#include "indexpool/ToolSupport/Benchmark.h"

#include "indexpool/Reference/Numerics.h"

#include <algorithm>
#include <cstdio>

namespace indexpool::tools {

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double gigabytesPerSecond(double bytes, double milliseconds) {
  return milliseconds > 0 ? bytes / (milliseconds * 1e-3) / 1e9 : 0.0;
}

double tensorBytes(const std::vector<ref::HostTensor> &tensors) {
  double bytes = 0;
  for (const ref::HostTensor &t : tensors)
    bytes += double(t.numElements() * ref::elementTypeBytes(t.type));
  return bytes;
}

BenchmarkStats benchmarkStats(const std::vector<double> &milliseconds,
                              double bytes) {
  BenchmarkStats stats;
  stats.medianMs = median(milliseconds);
  stats.gbps = gigabytesPerSecond(bytes, stats.medianMs);
  if (!milliseconds.empty())
    stats.bestMs = *std::min_element(milliseconds.begin(), milliseconds.end());
  return stats;
}

std::string formatBenchmark(const BenchmarkStats &stats) {
  char line[128];
  std::snprintf(line, sizeof(line),
                "median_ms=%.4f effective_GBps=%.3f best_ms=%.4f",
                stats.medianMs, stats.gbps, stats.bestMs);
  return line;
}

} // namespace indexpool::tools
