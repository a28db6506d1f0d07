//===- CpuMeasure.h - time a plan's CPU candidates in process ---*- C++ -*-===//
//
// Each candidate compiled with compileForCpu and its one-entry database,
// called on random inputs drawn once for all: a warm-up call, then the
// median of `repeat` timed calls of the compiled code (CpuFunction::
// timeKernel).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TUNING_CPUMEASURE_H
#define INDEXPOOL_TUNING_CPUMEASURE_H

#include "indexpool/Tuning/Collect.h"
#include "indexpool/Tuning/Plan.h"
#include "indexpool/Tuning/Schedule.h"

#include <string>
#include <vector>

namespace mlir {
class Operation;
} // namespace mlir

namespace indexpool {
class Module;
} // namespace indexpool

namespace indexpool::tuning {

struct CpuMeasureOptions {
  unsigned repeat = 20;
  /// --time-budget=SECONDS; 0: none (Schedule.h).
  double timeBudgetSeconds = 0;
  bool quiet = false;
};

/// Measures every candidate of `plan` (a CPU plan of `module`, whose
/// function is `function`, a func.func of the tuner's own parse, for the
/// random inputs), in Schedule.h's order within the budget; `summary`
/// says what was skipped. A candidate that fails is excluded and reported;
/// false with `error` only when no input can be drawn.
bool measureCpu(const Module &module, mlir::Operation *function,
                const Plan &plan, const std::string &directory,
                const CpuMeasureOptions &options,
                std::vector<Measurement> &measurements,
                ScheduleSummary &summary, std::string &error);

} // namespace indexpool::tuning

#endif // INDEXPOOL_TUNING_CPUMEASURE_H
