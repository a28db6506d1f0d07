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

/// One candidate's outcome: measured (ok or failed) or skipped.
struct Measurement {
  int candidate = 0;
  bool ok = false;
  /// Not measured: pruned, or left when the time budget was spent.
  bool skipped = false;
  /// Why it was excluded (failed to run or to verify) or skipped.
  std::string error;
  double medianMs = 0;
  std::vector<double> samplesMs;
  /// Seconds this measurement spent on what every candidate shares (the
  /// inputs, the reference), done once: not a prediction of the next one.
  double setupSeconds = 0;
};

/// The tuning database entry of `candidate` as JSON text.
std::string databaseEntry(const Plan &plan, const Candidate &candidate);

/// The candidates chosen: per (op, shape class) in plan order, the id of
/// the fastest measured candidate that did not fail.
std::vector<int> chooseBest(const Plan &plan,
                            const std::vector<Measurement> &measurements);

/// Writes DIR/measurements.json (with `note`, what the schedule skipped,
/// when not empty) and the database at `dbPath`. An (op, shape class)
/// whose candidates were all skipped gets no entry (the cost model's
/// launch stands for it) and a line in `leftOut`. Fails, writing no
/// database, when an (op, shape class) had candidates measured and all
/// failed, or when nothing was measured at all.
bool collect(const std::string &directory, const std::string &dbPath,
             const Plan &plan, const std::vector<Measurement> &measurements,
             const TimeSource &source, const std::string &note,
             std::vector<std::string> &leftOut, std::string &error);

/// One line per chosen candidate: "compress (op 0, T=1024, ...):
/// candidate 3, threads=..., median 0.0123 ms (CPU time); tuned vs cost
/// model 1.08x (candidate 0: 0.0133 ms)", the ratio of the same run's
/// candidate 0 median to the chosen one's.
void printChoices(const Plan &plan,
                  const std::vector<Measurement> &measurements,
                  const TimeSource &source, std::FILE *out);

} // namespace indexpool::tuning

#endif // INDEXPOOL_TUNING_COLLECT_H
