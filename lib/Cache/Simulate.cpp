//===- Simulate.cpp - Replays a trace through tiers under a policy --------===//

#include "indexpool/Cache/Simulate.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

using namespace indexpool::cache;

std::optional<SimulationResult>
indexpool::cache::simulate(const Trace &trace,
                           const std::vector<TierConfig> &tiers,
                           const std::string &policy, std::string &error) {
  std::unique_ptr<TieredPages> pages = TieredPages::create(tiers, policy, error);
  if (!pages)
    return std::nullopt;
  for (PageId page : trace.references)
    pages->reference(page);
  SimulationResult result;
  result.trace = trace.name;
  result.policy = policy;
  result.tiers = tiers;
  result.references = pages->references();
  for (std::size_t t = 0; t < pages->tierCount(); ++t)
    result.counters.push_back(pages->counters(t));
  result.misses = pages->misses();
  result.dropped = pages->dropped();
  return result;
}

std::optional<std::vector<SimulationResult>>
indexpool::cache::runStudy(const Trace &trace, const Study &study,
                           std::string &error) {
  const std::uint64_t distinct = distinctPages(trace);
  auto pagesOf = [&](double fraction) {
    return std::max<std::uint64_t>(1, std::uint64_t(fraction * double(distinct)));
  };
  std::vector<SimulationResult> results;
  for (double budget : study.budgets) {
    if (!(budget > 0 && budget <= 1)) {
      error = "budget " + std::to_string(budget) +
              ": expected a fraction of the trace's pages in (0, 1]";
      return std::nullopt;
    }
    std::vector<TierConfig> tiers{{"device", pagesOf(budget)}};
    if (study.hostFraction > 0)
      tiers.push_back({"host", pagesOf(study.hostFraction)});
    for (const std::string &policy : study.policies) {
      std::optional<SimulationResult> r = simulate(trace, tiers, policy, error);
      if (!r)
        return std::nullopt;
      results.push_back(std::move(*r));
    }
  }
  return results;
}

/// "91.3%"
static std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
  return text;
}

std::string
indexpool::cache::formatHitRates(const std::vector<SimulationResult> &results) {
  // Policies in their first order of appearance: the columns.
  std::vector<std::string> policies;
  for (const SimulationResult &r : results)
    if (std::find(policies.begin(), policies.end(), r.policy) == policies.end())
      policies.push_back(r.policy);
  const bool host = !results.empty() && results[0].tiers.size() > 1;
  std::string out = "| trace | references | device pages |";
  std::string rule = "| --- | ---: | ---: |";
  for (const std::string &p : policies) {
    out += " " + p + " device hits |";
    rule += " ---: |";
    if (host) {
      out += " " + p + " host hits |";
      rule += " ---: |";
    }
  }
  out += "\n" + rule + "\n";
  for (std::size_t i = 0; i < results.size();) {
    const SimulationResult &first = results[i];
    out += "| " + first.trace + " | " + std::to_string(first.references) +
           " | " + std::to_string(first.tiers[0].pages) + " |";
    for (const std::string &p : policies) {
      const SimulationResult *r = nullptr;
      for (std::size_t j = i; j < results.size() &&
                              results[j].trace == first.trace &&
                              results[j].tiers[0].pages == first.tiers[0].pages;
           ++j)
        if (results[j].policy == p)
          r = &results[j];
      out += r ? " " + percent(r->hitRate()) + " |" : " - |";
      if (host)
        out += r && r->references
                   ? " " + percent(double(r->counters[1].hits) /
                                   double(r->references)) + " |"
                   : " - |";
    }
    out += "\n";
    std::size_t j = i;
    while (j < results.size() && results[j].trace == first.trace &&
           results[j].tiers[0].pages == first.tiers[0].pages)
      ++j;
    i = j;
  }
  return out;
}

std::string
indexpool::cache::resultsJson(const std::vector<SimulationResult> &results) {
  std::string out = "[\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const SimulationResult &r = results[i];
    // Trace names come from file names: escape what JSON needs.
    std::string name;
    for (char c : r.trace) {
      if (c == '"' || c == '\\')
        name += '\\';
      if (static_cast<unsigned char>(c) >= 0x20)
        name += c;
    }
    out += "  {\"trace\": \"" + name + "\", \"policy\": \"" + r.policy +
           "\", \"device_pages\": " + std::to_string(r.tiers[0].pages) +
           ", \"references\": " + std::to_string(r.references) +
           ", \"device_hits\": " + std::to_string(r.counters[0].hits) +
           ", \"misses\": " + std::to_string(r.misses) + "}";
    out += i + 1 < results.size() ? ",\n" : "\n";
  }
  return out + "]\n";
}

bool indexpool::cache::loadTrace(const std::string &source, Trace &trace,
                                 std::string &error) {
  if (source.rfind("gen:", 0) != 0)
    return readTrace(source, trace, error);
  std::string_view rest = std::string_view(source).substr(4);
  std::uint64_t seed = 1;
  size_t colon = rest.find(':');
  if (colon != std::string_view::npos) {
    std::string_view digits = rest.substr(colon + 1);
    auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), seed);
    if (digits.empty() || ec != std::errc() ||
        end != digits.data() + digits.size()) {
      error = source + ": expected gen:KIND or gen:KIND:SEED";
      return false;
    }
  }
  return generateTrace(std::string(rest.substr(0, colon)), seed, trace, error);
}

std::optional<std::vector<indexpool::cache::SimulationResult>>
indexpool::cache::runStudies(const std::vector<std::string> &sources,
                             const Study &study, std::string &error) {
  std::vector<SimulationResult> all;
  for (const std::string &source : sources) {
    Trace trace;
    if (!loadTrace(source, trace, error))
      return std::nullopt;
    if (trace.references.empty()) {
      error = source + ": the trace has no references";
      return std::nullopt;
    }
    std::optional<std::vector<SimulationResult>> results =
        runStudy(trace, study, error);
    if (!results)
      return std::nullopt;
    all.insert(all.end(), results->begin(), results->end());
  }
  return all;
}
