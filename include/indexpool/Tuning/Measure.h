//===- Measure.h - time a plan's GPU candidates -----------------*- C++ -*-===//
//
// indexpool-tune-measure as a function: every candidate manifest of a plan
// launched on one device with the same random inputs, timed with CUDA
// events, optionally verified against the float64 reference, then
// collected (Collect.h). MLIR-free, on lib/Runtime.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TUNING_MEASURE_H
#define INDEXPOOL_TUNING_MEASURE_H

#include <string>

namespace indexpool::tuning {

struct MeasureOptions {
  /// The plan's folder (DIR/plan.json).
  std::string directory;
  /// The database written; empty: DIR/tuning-db.json.
  std::string dbPath;
  int device = 0;
  /// Timed runs per candidate, after one warm-up run.
  unsigned repeat = 20;
  bool verify = false;
  /// --prune=N: measure candidate 0 and the next N - 1 of each op in plan
  /// order (the cost model's ranking); 0: all.
  int prune = 0;
  /// --time-budget=SECONDS for the whole measurement; 0: none
  /// (Schedule.h: what stops, and what is always measured).
  double timeBudgetSeconds = 0;
  bool quiet = false;
  /// The program the error lines name.
  std::string tool = "indexpool-tune-measure";
};

/// Whether a CUDA driver loads and device `device` opens; `why` otherwise.
bool gpuAvailable(int device, std::string &why);

/// Measures (in Schedule.h's order, within the prune and the budget) and
/// collects. Returns the exit code: 0, or 1 after one line
/// "TOOL: error: ...".
int measurePlan(const MeasureOptions &options);

} // namespace indexpool::tuning

#endif // INDEXPOOL_TUNING_MEASURE_H
