//===- indexpool-cache-sim.cpp - Hit rates of LRU and LRU-K on traces -----===//
//
//   indexpool-cache-sim --generate=KIND [--seed=N] -o FILE
//   indexpool-cache-sim TRACE... [--policies=P,...] [--budgets=F,...]
//                       [--host=F] [--json=FILE]
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/Simulate.h"
#include "indexpool/ToolSupport/ParseNumber.h"
#include "indexpool/ToolSupport/ToolError.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string_view>

using namespace indexpool::cache;
using indexpool::tools::parseNumber;
using indexpool::tools::toolError;

static constexpr const char *kTool = "indexpool-cache-sim";

static const char *kHelp = R"(indexpool-cache-sim: hit rates of the cache's eviction policies on traces

usage: indexpool-cache-sim --generate=KIND [--seed=N] -o FILE
       indexpool-cache-sim TRACE... [options]

A trace is a file of page references (docs/cache.md) or gen:KIND[:SEED] for
a generated one: KIND is tenants (multi-tenant decode with shared system
prompts), requery (long documents re-queried after pauses) or scan (a hot
set and one-off scans that flood LRU). Each trace is replayed through a
device tier of each budget (and a host tier below it with --host) under
each policy; the device tier's hit rate per policy is printed as a table.

  --generate=KIND  write the trace KIND to the file of -o and stop
  --seed=N         the generator's seed (default 1)
  -o FILE          where --generate writes
  --policies=LIST  comma-separated: lru, lru-k (K = 2), lru-k:K, lru-k:K:PERIOD
                   (a correlated-reference period in references); default lru,lru-k
  --budgets=LIST   device budgets as fractions of the trace's distinct pages,
                   each in (0, 1]; default 0.01,0.02,0.05,0.1,0.25
  --host=F         a host tier of F (in (0, 1]) of the distinct pages
  --json=FILE      also write the results as JSON (bench/cache/plot_hit_rates.py)
  --help           this text
)";

namespace {

struct Options {
  std::vector<std::string> traces;
  std::string generate, output, json;
  std::uint64_t seed = 1;
  Study study;
};

std::vector<std::string> splitList(std::string_view text) {
  std::vector<std::string> items;
  while (true) {
    size_t comma = text.find(',');
    items.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos)
      return items;
    text.remove_prefix(comma + 1);
  }
}

bool parseFraction(std::string_view text, double &value) {
  return parseNumber(text, value) && value > 0 && value <= 1;
}

bool parseArgs(int argc, char **argv, Options &options, bool &help,
               std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help = true;
      return true;
    }
    if (arg == "-o") {
      if (i + 1 == argc) {
        error = "-o needs a file";
        return false;
      }
      options.output = argv[++i];
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      options.traces.emplace_back(arg);
      continue;
    }
    size_t equals = arg.find('=');
    std::string_view name = arg.substr(0, equals);
    if (equals == std::string_view::npos || equals + 1 == arg.size()) {
      error = "unknown option or missing value: '" + std::string(arg) +
              "' (see --help)";
      return false;
    }
    std::string_view value = arg.substr(equals + 1);
    if (name == "--generate") {
      options.generate = value;
    } else if (name == "--seed") {
      if (!parseNumber(value, options.seed)) {
        error = "--seed=" + std::string(value) + ": expected a number";
        return false;
      }
    } else if (name == "--policies") {
      options.study.policies = splitList(value);
    } else if (name == "--budgets") {
      options.study.budgets.clear();
      for (const std::string &b : splitList(value)) {
        double f = 0;
        if (!parseFraction(b, f)) {
          error = "--budgets: '" + b + "' is not a fraction in (0, 1]";
          return false;
        }
        options.study.budgets.push_back(f);
      }
    } else if (name == "--host") {
      if (!parseFraction(value, options.study.hostFraction)) {
        error = "--host=" + std::string(value) + ": expected a fraction in (0, 1]";
        return false;
      }
    } else if (name == "--json") {
      options.json = value;
    } else {
      error = "unknown option '" + std::string(name) + "' (see --help)";
      return false;
    }
  }
  return true;
}

/// A trace file, or gen:KIND[:SEED].
bool loadTrace(const std::string &source, Trace &trace, std::string &error) {
  if (source.rfind("gen:", 0) != 0)
    return readTrace(source, trace, error);
  std::string_view rest = std::string_view(source).substr(4);
  std::uint64_t seed = 1;
  size_t colon = rest.find(':');
  if (colon != std::string_view::npos &&
      !parseNumber(rest.substr(colon + 1), seed)) {
    error = source + ": expected gen:KIND or gen:KIND:SEED";
    return false;
  }
  return generateTrace(std::string(rest.substr(0, colon)), seed, trace, error);
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  bool help = false;
  std::string error;
  if (!parseArgs(argc, argv, options, help, error))
    return toolError(kTool, error);
  if (help) {
    std::cout << kHelp;
    return 0;
  }
  if (!options.generate.empty()) {
    if (options.output.empty())
      return toolError(kTool, "--generate needs -o FILE");
    Trace trace;
    if (!generateTrace(options.generate, options.seed, trace, error) ||
        !writeTrace(options.output, trace, error))
      return toolError(kTool, error);
    std::cout << options.output << ": " << trace.references.size()
              << " references, " << distinctPages(trace) << " pages\n";
    return 0;
  }
  if (options.traces.empty())
    return toolError(kTool, "no trace given (a file or gen:KIND; see --help)");
  std::vector<SimulationResult> all;
  for (const std::string &source : options.traces) {
    Trace trace;
    if (!loadTrace(source, trace, error))
      return toolError(kTool, error);
    if (trace.references.empty())
      return toolError(kTool, source + ": the trace has no references");
    std::optional<std::vector<SimulationResult>> results =
        runStudy(trace, options.study, error);
    if (!results)
      return toolError(kTool, error);
    all.insert(all.end(), results->begin(), results->end());
  }
  std::cout << formatHitRates(all);
  if (!options.json.empty()) {
    std::ofstream out(options.json);
    out << resultsJson(all);
    if (!out.flush())
      return toolError(kTool, options.json + ": cannot write");
  }
  return 0;
}
