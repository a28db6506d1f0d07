//===- Schedule.cpp - which candidates are measured, in what order --------===//
//
// The budget predicts from the longest candidate so far rather than the
// mean: one candidate too many is what overruns the device script's hard
// timeout, one too few only costs a candidate the model ranked lower.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Tuning/Schedule.h"

#include "indexpool/ToolSupport/ParseNumber.h"
#include "indexpool/Tuning/Progress.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <map>

namespace indexpool::tuning {

namespace {

volatile std::sig_atomic_t stopRequested = 0;

extern "C" void requestStop(int signal) {
  stopRequested = 1;
  // The next one ends the process the usual way.
  std::signal(signal, SIG_DFL);
}

/// SIGINT and SIGTERM handlers for the schedule's lifetime.
class StopOnSignal {
public:
  StopOnSignal() {
    stopRequested = 0;
    previousInt = std::signal(SIGINT, requestStop);
    previousTerm = std::signal(SIGTERM, requestStop);
  }
  ~StopOnSignal() {
    std::signal(SIGINT, previousInt);
    std::signal(SIGTERM, previousTerm);
  }

private:
  void (*previousInt)(int);
  void (*previousTerm)(int);
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

std::string formatSeconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g s", seconds);
  return buffer;
}

} // namespace

std::vector<int> measurementOrder(const Plan &plan, int prune) {
  // Each op's candidates in plan order, the ops in order of appearance.
  std::vector<int> opOrder;
  std::map<int, std::vector<int>> byOp;
  for (const Candidate &c : plan.candidates) {
    if (!byOp.count(c.opIndex))
      opOrder.push_back(c.opIndex);
    byOp[c.opIndex].push_back(c.id);
  }
  std::vector<int> order;
  for (size_t rank = 0;; ++rank) {
    if (prune > 0 && rank >= size_t(prune))
      break;
    bool any = false;
    for (int op : opOrder) {
      const std::vector<int> &ids = byOp[op];
      if (rank < ids.size()) {
        order.push_back(ids[rank]);
        any = true;
      }
    }
    if (!any)
      break;
  }
  return order;
}

double estimatedKernelSeconds(const Plan &plan, const std::vector<int> &ids,
                              unsigned runs) {
  std::map<int, double> modelUs;
  for (const Candidate &c : plan.candidates) {
    if (c.estimateUs < 0)
      return -1;
    if (c.number == 0)
      modelUs[c.opIndex] = c.estimateUs;
  }
  double untunedUs = 0;
  for (const auto &[op, us] : modelUs)
    untunedUs += us;
  double totalUs = 0;
  for (int id : ids) {
    const Candidate &c = plan.candidates[id];
    totalUs += untunedUs - modelUs[c.opIndex] + c.estimateUs;
  }
  return totalUs * runs / 1e6;
}

bool parseCandidateCount(const std::string &option, const std::string &text,
                         int &out, std::string &error) {
  int value = 0;
  if (!tools::parseNumber(text, value) || value < 1) {
    error = option + "=" + text +
            ": expected a number of candidates per op, at least 1 "
            "(candidate 0 is the cost model's choice)";
    return false;
  }
  out = value;
  return true;
}

bool parseSeconds(const std::string &option, const std::string &text,
                  double &out, std::string &error) {
  // strtod, not from_chars: floating-point from_chars needs libstdc++ 11,
  // and this builds on GPU machines with whatever compiler they have.
  char *end = nullptr;
  double value = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) ||
      end != text.c_str() + text.size() ||
      !std::isfinite(value) || value <= 0) {
    error = option + "=" + text + ": expected a number of seconds > 0";
    return false;
  }
  out = value;
  return true;
}

ScheduleSummary
runSchedule(const Plan &plan, const ScheduleOptions &options,
            const std::string &timeLabel, bool quiet,
            const std::function<void(const Candidate &, Measurement &)>
                &measureOne,
            std::vector<Measurement> &measurements) {
  auto start = std::chrono::steady_clock::now();
  StopOnSignal stopOnSignal;
  std::vector<int> order = measurementOrder(plan, options.prune);
  ScheduleSummary summary;
  summary.pruned = int(plan.candidates.size() - order.size());

  measurements.assign(plan.candidates.size(), Measurement());
  for (size_t id = 0; id < measurements.size(); ++id) {
    measurements[id].candidate = int(id);
    measurements[id].skipped = true;
    measurements[id].error =
        "pruned: --prune=" + std::to_string(options.prune) +
        " measures the first " + std::to_string(options.prune) +
        " candidates of each op in the cost model's order";
  }

  double longest = 0;
  {
    Progress progress(int(order.size()), timeLabel, quiet);
    for (int id : order) {
      const Candidate &candidate = plan.candidates[id];
      Measurement &m = measurements[id];
      bool required = candidate.number == 0;
      bool fits = options.timeBudgetSeconds <= 0 ||
                  secondsSince(start) + longest <= options.timeBudgetSeconds;
      if (stopRequested || (!fits && !required)) {
        summary.interrupted = summary.interrupted || stopRequested;
        ++summary.overBudget;
        m.error = stopRequested
                      ? "not measured: the run was stopped by a signal"
                      : "not measured: the time budget (--time-budget=" +
                            formatSeconds(options.timeBudgetSeconds) +
                            ") was spent";
        continue;
      }
      m = Measurement();
      m.candidate = id;
      auto began = std::chrono::steady_clock::now();
      measureOne(candidate, m);
      longest = std::max(longest, secondsSince(began) - m.setupSeconds);
      ++summary.measured;
      progress.step(id, m.ok, m.medianMs);
    }
  }
  summary.elapsedSeconds = secondsSince(start);

  bool overran = options.timeBudgetSeconds > 0 &&
                 summary.elapsedSeconds > options.timeBudgetSeconds;
  if (summary.overBudget == 0 && summary.pruned == 0 && !overran)
    return summary;
  summary.note = std::to_string(summary.measured) + " of " +
                 std::to_string(plan.candidates.size()) +
                 " candidates measured";
  if (summary.pruned > 0)
    summary.note += ", " + std::to_string(summary.pruned) + " pruned (--prune=" +
                    std::to_string(options.prune) + ")";
  if (summary.overBudget > 0)
    summary.note += ", " + std::to_string(summary.overBudget) +
                    (summary.interrupted
                         ? " not measured (stopped by a signal)"
                         : " not measured (time budget of " +
                               formatSeconds(options.timeBudgetSeconds) +
                               " spent)");
  if (overran)
    summary.note += "; the run took " +
                    formatSeconds(summary.elapsedSeconds) +
                    ", over the budget, because candidate 0 of every op is "
                    "always measured";
  if (summary.overBudget > 0 || summary.pruned > 0)
    summary.note += "; the skipped candidates are listed as \"skipped\" in "
                    "measurements.json, and the database holds the fastest "
                    "of those measured";
  return summary;
}

} // namespace indexpool::tuning
