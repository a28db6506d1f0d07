//===- Schedule.h - which candidates are measured, in what order -*- C++ -*-===//
//
// Both tuning tools measure through runSchedule: every op's candidate 0
// (the cost model's choice) first, then round robin over the ops in each
// op's plan order (the cost model's ranking), so that whatever stops the
// run early (the time budget, a signal) leaves each op the candidates the
// model ranks best. Candidates beyond --prune=N per op, or left when the
// budget is spent, are recorded as skipped, never as measured. MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TUNING_SCHEDULE_H
#define INDEXPOOL_TUNING_SCHEDULE_H

#include "indexpool/Tuning/Collect.h"
#include "indexpool/Tuning/Plan.h"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace indexpool::tuning {

/// The most timed runs per candidate --repeat takes (both tuning tools).
inline constexpr unsigned kMaxRepeat = 100000;

struct ScheduleOptions {
  /// Candidates measured per op: candidate 0 and the next `prune` - 1 in
  /// plan order; 0 measures them all.
  int prune = 0;
  /// Wall-clock seconds for the whole measurement; 0: no limit. A
  /// candidate starts only when the time spent so far plus the longest
  /// candidate so far fits. Candidate 0 of every op is measured whatever
  /// the budget: without it there is neither a database entry nor the
  /// tuned-vs-model ratio.
  double timeBudgetSeconds = 0;
};

/// What a schedule left out, for the tools' notes and measurements.json.
struct ScheduleSummary {
  int measured = 0;
  int pruned = 0;
  /// Not started because the budget was spent (or a signal came).
  int overBudget = 0;
  bool interrupted = false;
  double elapsedSeconds = 0;
  /// One sentence, empty when every candidate was measured.
  std::string note;
};

/// The ids of the candidates to measure, in the order described above:
/// per op the first `prune` (all when 0) of its candidates in plan order.
std::vector<int> measurementOrder(const Plan &plan, int prune);

/// The cost model's estimate of the GPU time the kernels of the candidates
/// `ids` take when each runs the whole function `runs` times: a candidate
/// runs its op's launch and every other op's candidate 0. An ESTIMATE of
/// the kernels only (loading, uploads and --verify come on top); -1 when
/// the plan has no estimates (CPU plans).
double estimatedKernelSeconds(const Plan &plan, const std::vector<int> &ids,
                              unsigned runs);

/// Checks a --prune or --max-candidates value (>= 1) and a --time-budget
/// (a finite number of seconds > 0) given as text; false with `error`
/// ("--prune=0: expected ...") otherwise.
bool parseCandidateCount(const std::string &option, const std::string &text,
                         int &out, std::string &error);
bool parseSeconds(const std::string &option, const std::string &text,
                  double &out, std::string &error);

/// Measures the candidates of `plan` with `measureOne` (which fills a
/// Measurement, `setupSeconds` included) in measurementOrder within the
/// budget. `measurements` gets one entry per candidate of the plan, in id
/// order, the skipped ones with `skipped` set and their reason. SIGINT and
/// SIGTERM stop the schedule after the candidate being measured (a second
/// one ends the process), so that what was measured is still collected.
ScheduleSummary
runSchedule(const Plan &plan, const ScheduleOptions &options,
            const std::string &timeLabel, bool quiet,
            const std::function<void(const Candidate &, Measurement &)>
                &measureOne,
            std::vector<Measurement> &measurements);

} // namespace indexpool::tuning

#endif // INDEXPOOL_TUNING_SCHEDULE_H
