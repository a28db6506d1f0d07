//===- Tuner.h - indexpool-tune as a function -------------------*- C++ -*-===//
//
// Compiles every candidate launch of every op of one function through the
// public API (each with a one-entry tuning database), measures them (on the
// CPU in process, on a GPU through Measure.h when a driver is here) and
// writes the fastest per (op, shape class) as a tuning database
// (docs/tuning.md).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TUNING_TUNER_H
#define INDEXPOOL_TUNING_TUNER_H

#include <string>

namespace indexpool::tuning {

constexpr const char *kTuneTool = "indexpool-tune";

struct TuneOptions {
  /// The .mlir file ("-": standard input).
  std::string input;
  /// The function (with or without @); empty: the module's only one.
  std::string function;
  /// "cpu" or a chip of the target table.
  std::string chip;
  /// -o DIR.
  std::string directory;
  /// --db=FILE; empty: DIR/tuning-db.json.
  std::string dbPath;
  /// Per op, at least 1: candidate 0 and the best of the rest by the cost
  /// model's estimate. 8 fits bench/gpu/run-on-device.sh's tune stage
  /// (docs/tuning.md, "Budget").
  int maxCandidates = 8;
  unsigned repeat = 20;
  /// --time-budget=SECONDS for the measurement; 0: none.
  double timeBudgetSeconds = 0;
  int device = 0;
  bool verify = false;
  bool plot = false;
  bool quiet = false;
};

/// Runs the tuner. Returns the exit code: 0, or 1 after one line
/// "indexpool-tune: error: ...".
int runTuner(const TuneOptions &options);

} // namespace indexpool::tuning

#endif // INDEXPOOL_TUNING_TUNER_H
