//===- Simulate.h - Replays a trace through tiers under a policy ----------===//

#ifndef INDEXPOOL_CACHE_SIMULATE_H
#define INDEXPOOL_CACHE_SIMULATE_H

#include "indexpool/Cache/TieredPages.h"
#include "indexpool/Cache/Trace.h"

#include <optional>

namespace indexpool::cache {

struct SimulationResult {
  std::string trace, policy;
  std::vector<TierConfig> tiers;
  std::uint64_t references = 0;
  std::vector<TierCounters> counters; // per tier
  std::uint64_t misses = 0, dropped = 0;

  /// The fraction of references served from tier 0 (the device).
  double hitRate() const {
    return references ? double(counters[0].hits) / double(references) : 0;
  }
};

/// Replays `trace` through `tiers` with `policy`; nullopt with `error` set
/// when the tiers or the policy are invalid.
std::optional<SimulationResult> simulate(const Trace &trace,
                                         const std::vector<TierConfig> &tiers,
                                         const std::string &policy,
                                         std::string &error);

/// A study: each trace at each tier-0 budget (a fraction of the trace's
/// distinct pages; a host tier of `hostFraction` of them below it when > 0)
/// under each policy.
struct Study {
  std::vector<std::string> policies{"lru", "lru-k"};
  std::vector<double> budgets{0.01, 0.02, 0.05, 0.1, 0.25};
  double hostFraction = 0;
};

/// Runs `study` on `trace`; the results in (budget, policy) order.
std::optional<std::vector<SimulationResult>>
runStudy(const Trace &trace, const Study &study, std::string &error);

/// A trace file, or gen:KIND[:SEED] for a generated one (generateTrace);
/// false with `error` set otherwise.
bool loadTrace(const std::string &source, Trace &trace, std::string &error);

/// runStudy on every trace of `sources` (loadTrace), in order: what
/// indexpool-cache-sim prints. nullopt with `error` set (a trace that does
/// not load or has no references, an invalid study).
std::optional<std::vector<SimulationResult>>
runStudies(const std::vector<std::string> &sources, const Study &study,
           std::string &error);

/// A Markdown table: a row per trace and budget, the tier-0 hit rate of
/// each policy (and the host tier's, when there is one).
std::string formatHitRates(const std::vector<SimulationResult> &results);
/// The results as JSON (a list of objects), for plots.
std::string resultsJson(const std::vector<SimulationResult> &results);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_SIMULATE_H
