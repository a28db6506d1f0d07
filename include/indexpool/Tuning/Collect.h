//===- Collect.h - the fastest candidate per op into a database -*- C++ -*-===//
//
// The step both tuning tools end with: every candidate's times into
// DIR/measurements.json and the fastest candidate of each (op, shape class)
// into a tuning database in the format --indexpool-configure reads
// (docs/design.md, "The tuning database"). MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TUNING_COLLECT_H
#define INDEXPOOL_TUNING_COLLECT_H

#include "indexpool/Tuning/Plan.h"

#include <cstdio>
#include <string>
#include <vector>

namespace indexpool::tuning {

/// Where the times come from: "cpu", "gpu" or "fake-cuda-driver" (the
/// fake driver's event times, which are not GPU times).
struct TimeSource {
  std::string name;
  /// How messages label a time: "CPU time", "GPU time", "fake-driver time,
  /// not a GPU time".
  std::string label;
};

TimeSource cpuSource();
TimeSource gpuSource();
TimeSource fakeDriverSource();

/// One candidate's outcome.
struct Measurement {
  int candidate = 0;
  bool ok = false;
  /// Why it was excluded (failed to run or to verify).
  std::string error;
  double medianMs = 0;
  std::vector<double> samplesMs;
};

/// The tuning database entry of `candidate` as JSON text.
std::string databaseEntry(const Plan &plan, const Candidate &candidate);

/// The candidates chosen: per (op, shape class) in plan order, the id of
/// the fastest measured candidate that did not fail.
std::vector<int> chooseBest(const Plan &plan,
                            const std::vector<Measurement> &measurements);

/// Writes DIR/measurements.json and the database at `dbPath`. Fails when
/// an (op, shape class) has no candidate that succeeded.
bool collect(const std::string &directory, const std::string &dbPath,
             const Plan &plan, const std::vector<Measurement> &measurements,
             const TimeSource &source, std::string &error);

/// One line per chosen candidate: "compress (op 0, T=1024, ...):
/// candidate 3, threads=..., median 0.0123 ms (CPU time)".
void printChoices(const Plan &plan,
                  const std::vector<Measurement> &measurements,
                  const TimeSource &source, std::FILE *out);

} // namespace indexpool::tuning

#endif // INDEXPOOL_TUNING_COLLECT_H
