//===- Report.cpp - results, --output, --verify, --benchmark --------------===//

#include "indexpool/ToolSupport/Report.h"

#include "indexpool/Runtime/Npy.h"
#include "indexpool/ToolSupport/Inputs.h"
#include "indexpool/ToolSupport/ToolError.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace indexpool::tools {

std::string formatValue(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-INF" : "INF";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%e", value);
  return buffer;
}

namespace {

/// "result #I (TYPE): v0, v1, ..., ... (N values)": the first 8 values.
void printValues(size_t index, const std::string &type,
                 const ref::HostTensor &result) {
  std::string line = "result #" + std::to_string(index) + " (" + type + "):";
  size_t shown = std::min<size_t>(result.data.size(), 8);
  for (size_t j = 0; j < shown; ++j)
    line += (j ? ", " : " ") + formatValue(result.data[j]);
  if (shown < result.data.size())
    line += ", ... (" + std::to_string(result.data.size()) + " values)";
  std::printf("%s\n", line.c_str());
}

} // namespace

int reportResults(const ReportOptions &options,
                  const std::vector<ref::HostTensor> &results,
                  const std::vector<std::string> &types) {
  auto fail = [&](const std::string &message) {
    return toolError(options.tool, message);
  };
  for (size_t i = 0; i < options.outputFiles.size(); ++i) {
    std::string why;
    if (!runtime::writeNpy(stripAt(options.outputFiles[i]),
                           runtime::hostTensorToNpy(results[i]), why))
      return fail(options.outputNoun + " #" + std::to_string(i) + ": " + why);
  }

  if (options.outputFiles.empty() && !options.verify &&
      options.benchmarkRuns == 0)
    for (size_t i = 0; i < results.size(); ++i)
      printValues(i, types[i], results[i]);

  int failures = 0;
  if (options.verify) {
    std::vector<runtime::Comparison> comparisons;
    std::string error;
    if (!options.compare(comparisons, error))
      return fail(error);
    for (size_t i = 0; i < results.size(); ++i) {
      failures += !comparisons[i].ok;
      std::printf("result #%zu (%s): %s\n", i, types[i].c_str(),
                  runtime::formatComparison(comparisons[i], results[i].type)
                      .c_str());
    }
  }

  if (options.benchmarkRuns > 0) {
    std::vector<double> milliseconds;
    std::string error;
    if (!options.timeRuns(milliseconds, error))
      return fail(error);
    BenchmarkStats stats =
        benchmarkStats(milliseconds, options.benchmarkBytes);
    std::printf("%s\n", formatBenchmark(stats).c_str());
    if (options.afterBenchmark && !options.afterBenchmark(stats, error))
      return fail(error);
  }

  if (failures)
    return fail(std::to_string(failures) + " of " +
                std::to_string(results.size()) +
                " results are out of tolerance (--verify)");
  return 0;
}

} // namespace indexpool::tools
