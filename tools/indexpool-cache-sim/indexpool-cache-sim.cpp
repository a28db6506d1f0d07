//===- indexpool-cache-sim.cpp - Hit rates of LRU and LRU-K on traces -----===//
//
//   indexpool-cache-sim --generate=KIND [--seed=N] -o FILE
//   indexpool-cache-sim TRACE... [--policies=P,...] [--budgets=F,...]
//                       [--host=F] [--json=FILE]
//
// The command line of indexpool::cache's generateTrace and runStudies
// (Cache/Simulate.h).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/Simulate.h"
#include "indexpool/ToolSupport/Flags.h"
#include "indexpool/ToolSupport/ToolError.h"

#include <fstream>
#include <iostream>

using namespace indexpool::cache;
using indexpool::tools::Flags;
using indexpool::tools::toolError;

static constexpr const char *kTool = "indexpool-cache-sim";

int main(int argc, char **argv) {
  std::vector<std::string> traces;
  std::string generate, output, json;
  std::uint64_t seed = 1;
  Study study;
  auto fraction = [](double f) { return f > 0 && f <= 1; };
  Flags flags(kTool, "hit rates of the cache's eviction policies on traces",
              "TRACE... [options] | --generate=KIND [--seed=N] -o FILE");
  flags.positional("TRACE", traces, SIZE_MAX)
      .option("--generate", "KIND",
              "write the trace KIND to the file of -o and stop",
              Flags::text(generate))
      .option("--seed", "N", "the generator's seed (default 1)",
              Flags::number(seed, "a number"))
      .option("-o", "FILE", "where --generate writes", Flags::text(output))
      .option("--policies", "LIST",
              "comma-separated: lru, lru-k (K = 2), lru-k:K, lru-k:K:PERIOD "
              "(a correlated-reference period in references); default "
              "lru,lru-k",
              Flags::commaList(study.policies))
      .option("--budgets", "LIST",
              "device budgets as fractions of the trace's distinct pages, each "
              "in (0, 1]; default 0.01,0.02,0.05,0.1,0.25",
              Flags::numberList<double>(study.budgets, "a fraction in (0, 1]",
                                        fraction))
      .option("--host", "F",
              "a host tier of F (in (0, 1]) of the distinct pages",
              Flags::number<double>(study.hostFraction,
                                    "a fraction in (0, 1]", fraction))
      .option("--json", "FILE",
              "also write the results as JSON (bench/cache/plot_hit_rates.py)",
              Flags::text(json))
      .epilog("A trace is a file of page references (docs/cache.md) or "
              "gen:KIND[:SEED] for a generated one: KIND is tenants "
              "(multi-tenant decode with shared system prompts), requery "
              "(long documents re-queried after pauses) or scan (a hot set and "
              "one-off scans that flood LRU). Each trace is replayed through a "
              "device tier of each budget (and a host tier below it with "
              "--host) under each policy; the device tier's hit rate per "
              "policy is printed as a table.");
  if (std::optional<int> exit = flags.parse(argc, argv))
    return *exit;
  std::string error;
  if (!generate.empty()) {
    if (output.empty())
      return toolError(kTool, "--generate needs -o FILE");
    Trace trace;
    if (!generateTrace(generate, seed, trace, error) ||
        !writeTrace(output, trace, error))
      return toolError(kTool, error);
    std::cout << output << ": " << trace.references.size() << " references, "
              << distinctPages(trace) << " pages\n";
    return 0;
  }
  if (traces.empty())
    return toolError(kTool, "no trace given (a file or gen:KIND; see --help)");
  std::optional<std::vector<SimulationResult>> all =
      runStudies(traces, study, error);
  if (!all)
    return toolError(kTool, error);
  std::cout << formatHitRates(*all);
  if (!json.empty() && !(std::ofstream(json) << resultsJson(*all)).flush())
    return toolError(kTool, json + ": cannot write");
  return 0;
}
