//===- Progress.h - the progress bar of the tuning tools --------*- C++ -*-===//
//
// "[######......] 12/48  best 0.213 ms (candidate 7)" on stderr: redrawn in
// place on a terminal, else one line per tenth of the work. MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TUNING_PROGRESS_H
#define INDEXPOOL_TUNING_PROGRESS_H

#include <cstdio>
#include <string>

namespace indexpool::tuning {

class Progress {
public:
  /// `label` follows the time ("CPU time"). Nothing is printed when
  /// `quiet`.
  Progress(int total, std::string label, bool quiet, std::FILE *out = stderr);
  ~Progress();

  /// One more candidate done; its time when `ok`.
  void step(int candidate, bool ok, double medianMs);
  /// The line as it stands, e.g. "[######......] 12/48  best 0.213 ms
  /// (candidate 7, CPU time)".
  std::string line() const;

private:
  void draw();

  int total, done = 0, best = -1;
  double bestMs = 0;
  std::string label;
  bool quiet, tty;
  int lastDecile = -1;
  std::FILE *out;
};

} // namespace indexpool::tuning

#endif // INDEXPOOL_TUNING_PROGRESS_H
