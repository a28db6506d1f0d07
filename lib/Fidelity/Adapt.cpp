//===- Adapt.cpp - a pool size per layer under a memory budget ------------===//

#include "indexpool/Fidelity/Adapt.h"

#include "indexpool/API/Builders.h"
#include "indexpool/Fidelity/Fidelity.h"
#include "indexpool/Fidelity/Inputs.h"
#include "indexpool/Fidelity/Report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace indexpool::fidelity {

namespace {

/// One keys.npy / queries.npy pair of the dump.
struct KeySet {
  std::string name; // "layer0/head3" or "layer0"
  std::string keysPath, queriesPath;
  int64_t dim = 0;
};

/// A unit before measurement: its key sets.
struct UnitInput {
  std::string name, functionName;
  std::vector<KeySet> keySets;
};

/// N for a folder named PREFIX + N (digits only), else -1.
int64_t indexOf(const std::string &name, const std::string &prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix))
    return -1;
  std::string digits = name.substr(prefix.size());
  if (digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(),
                   [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stoll(digits);
}

/// The PREFIX + N folders of `dir`, by N.
std::vector<std::pair<int64_t, fs::path>> numberedFolders(const fs::path &dir,
                                                          const char *prefix) {
  std::vector<std::pair<int64_t, fs::path>> folders;
  std::error_code error;
  for (const fs::directory_entry &entry : fs::directory_iterator(dir, error)) {
    int64_t n = indexOf(entry.path().filename().string(), prefix);
    if (n >= 0 && entry.is_directory(error))
      folders.emplace_back(n, entry.path());
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

bool hasPair(const fs::path &dir) {
  std::error_code error;
  return fs::exists(dir / "keys.npy", error) ||
         fs::exists(dir / "queries.npy", error);
}

/// The dump's key sets grouped into units.
Status readLayout(const AdaptOptions &options, std::vector<UnitInput> &units) {
  const std::string &dump = options.dumpPath;
  std::error_code error;
  if (!fs::is_directory(dump, error))
    return Status::error(dump + ": no such folder");
  auto layers = numberedFolders(dump, "layer");
  if (layers.empty())
    return Status::error(dump + ": no layerL folders (expected "
                                "DIR/layerL/{keys,queries}.npy or "
                                "DIR/layerL/headH/{keys,queries}.npy)");
  for (const auto &[layer, layerDir] : layers) {
    std::string layerName = "layer" + std::to_string(layer);
    auto heads = numberedFolders(layerDir, "head");
    if (hasPair(layerDir) && !heads.empty())
      return Status::error(dump + "/" + layerName +
                           ": holds both keys / queries and headH folders");
    std::vector<KeySet> sets;
    if (heads.empty()) {
      sets.push_back({layerName, (layerDir / "keys.npy").string(),
                      (layerDir / "queries.npy").string()});
    } else {
      for (const auto &[head, headDir] : heads)
        sets.push_back({layerName + "/head" + std::to_string(head),
                        (headDir / "keys.npy").string(),
                        (headDir / "queries.npy").string()});
    }
    for (KeySet &set : sets) {
      FloatArray keys;
      if (Status status = readFloat32(set.name + ": keys", set.keysPath, keys);
          !status)
        return status;
      if (keys.shape.size() != 2 || keys.shape[0] == 0 || keys.shape[1] == 0)
        return Status::error(set.name + ": keys: expected a non-empty [T, D] "
                                        "array, got " +
                             shapeText(keys.shape));
      set.dim = keys.shape[1];
    }
    if (options.group == AdaptGroup::Layer || heads.empty()) {
      // One compress function serves the layer's heads: one D.
      for (const KeySet &set : sets)
        if (set.dim != sets.front().dim)
          return Status::error(layerName + ": heads differ in D (" +
                               std::to_string(sets.front().dim) + " and " +
                               std::to_string(set.dim) +
                               "): use --group=head");
      units.push_back({layerName, "compress_" + layerName, sets});
    } else {
      for (KeySet &set : sets) {
        std::string function = "compress_" + set.name;
        std::replace(function.begin(), function.end(), '/', '_');
        units.push_back({set.name, function, {set}});
      }
    }
  }
  return Status();
}

int64_t storedDimOf(int64_t dim, bool rotate) {
  int64_t padded = dim;
  while (rotate && !isPowerOfTwo(padded))
    ++padded;
  return padded;
}

/// Bytes per token of one key set times its pool size: codes and a scale,
/// or f32 pooled keys.
int64_t bytesPerPool(int64_t storedDim, PoolFormat format) {
  return pooledKeyBytes(format, storedDim);
}

/// The exact choice: a multiple-choice knapsack (one candidate per unit,
/// the summed objective maximal, the summed cost within the budget), by
/// dynamic programming over the distinct byte totals. Costs are integers
/// (bytes per token x the largest P, exact since every candidate P divides
/// it), so totals compare exactly. After each unit only the Pareto frontier
/// is kept (cost ascending, summed objective strictly rising): a partial
/// choice that costs more without scoring more can never end better, so
/// the result is the optimum, and among optima the cheapest. Objectives are
/// summed unit by unit in order from 0, as an independent brute force over
/// the same numbers would. Returns the index chosen per unit.
std::vector<size_t> chooseExactly(const std::vector<std::vector<int64_t>> &cost,
                                  const std::vector<std::vector<double>> &value,
                                  int64_t budget) {
  struct State {
    int64_t cost = 0;
    double sum = 0;
    std::vector<size_t> picks;
  };
  size_t units = cost.size();
  // The least the units after u can cost: a partial choice that leaves
  // less than that under the budget can be completed by none.
  std::vector<int64_t> minRest(units + 1, 0);
  for (size_t u = units; u-- > 0;)
    minRest[u] = minRest[u + 1] +
                 *std::min_element(cost[u].begin(), cost[u].end());
  std::vector<State> frontier{State()};
  for (size_t u = 0; u < units; ++u) {
    std::vector<State> next;
    for (const State &state : frontier)
      for (size_t j = 0; j < cost[u].size(); ++j) {
        int64_t total = state.cost + cost[u][j];
        if (total + minRest[u + 1] > budget)
          continue;
        State grown{total, state.sum + value[u][j], state.picks};
        grown.picks.push_back(j);
        next.push_back(std::move(grown));
      }
    // Cost ascending, then sum descending, then as generated (std::sort
    // with a full order: libstdc++'s stable_sort warns under clang 22).
    std::vector<size_t> order(next.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const State &x = next[a], &y = next[b];
      if (x.cost != y.cost)
        return x.cost < y.cost;
      if (x.sum != y.sum)
        return x.sum > y.sum;
      return a < b;
    });
    frontier.clear();
    for (size_t i : order)
      if (frontier.empty() || next[i].sum > frontier.back().sum)
        frontier.push_back(std::move(next[i]));
  }
  return frontier.back().picks;
}

/// Mean recall / mass recall / objective over the units at the given
/// indices, bytes summed.
AdaptTotals totalsOf(const std::vector<AdaptUnit> &units,
                     const std::vector<size_t> &picks) {
  AdaptTotals totals;
  for (size_t u = 0; u < units.size(); ++u) {
    const AdaptMeasurement &m = units[u].measurements[picks[u]];
    totals.recall += m.recall;
    totals.massRecall += m.massRecall;
    totals.objective += m.objective;
    totals.bytesPerToken += m.bytesPerToken;
  }
  double n = double(units.size());
  totals.recall /= n;
  totals.massRecall /= n;
  totals.objective /= n;
  return totals;
}

/// 17 significant digits: the number read back is the double measured.
std::string exactNumber(double value) {
  if (!std::isfinite(value))
    return "null";
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

/// Bytes are multiples of 1 / P: "4.75", "38".
std::string bytesText(double value) {
  char text[40];
  std::snprintf(text, sizeof(text), "%.4f", value);
  std::string s = text;
  while (s.back() == '0')
    s.pop_back();
  if (s.back() == '.')
    s.pop_back();
  return s;
}

std::string quoted(const std::string &text) { return "\"" + text + "\""; }

} // namespace

Status parsePoolSizes(const std::string &text, std::vector<int64_t> &sizes) {
  sizes.clear();
  size_t start = 0;
  while (true) {
    size_t end = text.find(',', start);
    std::string item = text.substr(start, end - start);
    bool digits = !item.empty() && item.size() <= 9 &&
                  std::all_of(item.begin(), item.end(),
                              [](char c) { return c >= '0' && c <= '9'; });
    int64_t p = digits ? std::stoll(item) : 0;
    if (!isPowerOfTwo(p) || p < 2 || p > 64)
      return Status::error("--pool-sizes=" + text + ": '" + item +
                           "' is not a power of two in [2, 64]");
    if (std::find(sizes.begin(), sizes.end(), p) != sizes.end())
      return Status::error("--pool-sizes=" + text + ": " + item +
                           " appears twice");
    sizes.push_back(p);
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  std::sort(sizes.begin(), sizes.end());
  return Status();
}

Status runAdapt(const AdaptOptions &options, AdaptReport &report) {
  if (options.poolSizes.empty())
    return Status::error("--pool-sizes: no candidate pool size");
  for (int64_t p : options.poolSizes)
    if (!isPowerOfTwo(p) || p < 2 || p > 64)
      return Status::error("--pool-sizes: " + std::to_string(p) +
                           " is not a power of two in [2, 64]");
  std::vector<int64_t> sizes = options.poolSizes;
  std::sort(sizes.begin(), sizes.end());
  if (std::adjacent_find(sizes.begin(), sizes.end()) != sizes.end())
    return Status::error("--pool-sizes: a pool size appears twice");
  int64_t largest = sizes.back();
  if (options.k <= 0 || options.k % largest != 0)
    return Status::error("--k=" + std::to_string(options.k) +
                         " must be a positive multiple of every candidate "
                         "pool size (the largest: " +
                         std::to_string(largest) + ")");
  if (options.budget < 0 || options.budgetRatio < 0)
    return Status::error("--budget and --budget-ratio must be positive");
  if ((options.budget > 0) == (options.budgetRatio > 0))
    return Status::error(
        "give one budget: --budget=BYTES_PER_TOKEN (> 0) or --budget-ratio=R "
        "(> 0)");
  if (!std::isfinite(options.budget))
    return Status::error("--budget must be finite");

  std::vector<UnitInput> inputs;
  if (Status status = readLayout(options, inputs); !status)
    return status;

  // Costs in bytes per token x the largest P: integers.
  std::vector<std::vector<int64_t>> cost(inputs.size());
  int64_t perPoolTotal = 0;
  for (size_t u = 0; u < inputs.size(); ++u) {
    int64_t perPool = 0;
    for (const KeySet &set : inputs[u].keySets) {
      int64_t stored = storedDimOf(set.dim, options.rotate);
      if (stored > 1024)
        return Status::error("--rotate: " + set.name + ": D = " +
                             std::to_string(set.dim) + " pads to " +
                             std::to_string(stored) +
                             ", beyond the Hadamard transform's 1024");
      perPool += bytesPerPool(stored, options.format);
    }
    perPoolTotal += perPool;
    for (int64_t p : sizes)
      cost[u].push_back(perPool * (largest / p));
  }
  double budget = options.budget > 0
                      ? options.budget
                      : double(perPoolTotal) / double(options.budgetRatio);
  // The exact totals are multiples of 1 / largest; the tolerance absorbs
  // the rounding of a budget given in decimal; a huge one is clamped
  // (every total fits far below).
  int64_t scaledBudget =
      int64_t(std::min(std::floor(budget * double(largest) + 1e-9), 1e18));
  int64_t cheapest = perPoolTotal; // every unit at the largest P
  if (cheapest > scaledBudget)
    return Status::error(
        "the budget of " + bytesText(budget) +
        " bytes per token is below the least any choice needs: " +
        bytesText(double(cheapest) / double(largest)) +
        " (every unit at P = " + std::to_string(largest) + ")");

  // Every unit at every candidate P, by the compiled kernels.
  report.units.clear();
  for (size_t u = 0; u < inputs.size(); ++u) {
    const UnitInput &input = inputs[u];
    AdaptUnit unit;
    unit.name = input.name;
    unit.functionName = input.functionName;
    unit.keySets = int64_t(input.keySets.size());
    unit.dim = input.keySets.front().dim;
    unit.storedDim = storedDimOf(unit.dim, options.rotate);
    for (size_t j = 0; j < sizes.size(); ++j) {
      AdaptMeasurement m;
      m.poolSize = sizes[j];
      for (const KeySet &set : input.keySets) {
        FidelityOptions fidelity;
        fidelity.keysPath = set.keysPath;
        fidelity.queriesPath = set.queriesPath;
        fidelity.poolSize = sizes[j];
        fidelity.k = options.k;
        fidelity.format = options.format;
        fidelity.rotate = options.rotate;
        fidelity.last = options.last;
        FidelityReport measured;
        if (Status status = runFidelity(fidelity, measured); !status)
          return Status::error(set.name + ": " + status.message());
        m.recall += measured.recall;
        m.massRecall += measured.massRecall;
        unit.tokens = measured.tokens;
      }
      m.recall /= double(unit.keySets);
      m.massRecall /= double(unit.keySets);
      m.objective = options.objective == AdaptObjective::MassRecall
                        ? m.massRecall
                        : m.recall;
      m.bytesPerToken = double(cost[u][j]) / double(largest);
      unit.measurements.push_back(m);
    }
    report.units.push_back(std::move(unit));
  }

  std::vector<std::vector<double>> value(report.units.size());
  for (size_t u = 0; u < report.units.size(); ++u)
    for (const AdaptMeasurement &m : report.units[u].measurements)
      value[u].push_back(m.objective);
  std::vector<size_t> picks = chooseExactly(cost, value, scaledBudget);
  for (size_t u = 0; u < report.units.size(); ++u)
    report.units[u].chosen = picks[u];
  report.adaptive = totalsOf(report.units, picks);

  // The anchor: one P for every unit, the smallest that fits (the largest
  // always does).
  for (size_t j = 0; j < sizes.size(); ++j) {
    int64_t total = 0;
    for (const std::vector<int64_t> &c : cost)
      total += c[j];
    if (total > scaledBudget)
      continue;
    report.uniform = totalsOf(report.units,
                              std::vector<size_t>(report.units.size(), j));
    report.uniform.poolSize = sizes[j];
    break;
  }

  report.dumpPath = options.dumpPath;
  report.budget = budget;
  report.budgetRatio = options.budget > 0 ? 0 : options.budgetRatio;
  report.poolSizes = sizes;
  report.k = options.k;
  report.last = options.last;
  report.format = poolFormatName(options.format);
  report.rotate = options.rotate;
  report.group = options.group == AdaptGroup::Layer ? "layer" : "head";
  report.objective = options.objective == AdaptObjective::MassRecall
                         ? "mass_recall"
                         : "recall";
  return Status();
}

std::string formatAdaptText(const AdaptReport &r) {
  std::string objective =
      r.objective == "mass_recall" ? "mass recall" : "recall";
  int64_t keySets = 0;
  for (const AdaptUnit &unit : r.units)
    keySets += unit.keySets;
  std::string text;
  text += "dump: " + r.dumpPath + " (" + std::to_string(keySets) +
          " key sets in " + std::to_string(r.units.size()) + " units, one per " +
          r.group + "), k = " + std::to_string(r.k) + ", last " +
          std::to_string(r.last) + " positions, format " + r.format +
          (r.rotate ? ", rotated" : "") + "\n";
  text += "budget: " + bytesText(r.budget) + " bytes per token" +
          (r.budgetRatio ? " (every unit at P = " +
                               std::to_string(r.budgetRatio) + ")"
                         : "") +
          "; maximising the mean " + objective + "\n";

  size_t width = 8;
  for (const AdaptUnit &unit : r.units)
    width = std::max(width, unit.name.size());
  std::string sizes;
  for (size_t j = 0; j < r.poolSizes.size(); ++j)
    sizes += (j ? " / " : "") + std::to_string(r.poolSizes[j]);
  // Columns: unit, P, recall, mass recall, bytes per token, then the rest.
  auto columns = [&](const std::string &name, const std::string &p,
                     const std::string &recall, const std::string &mass,
                     const std::string &bytes, const std::string &tail) {
    char line[512];
    std::snprintf(line, sizeof(line), "%-*s  %3s  %8s  %11s  %11s  %s",
                  int(width), name.c_str(), p.c_str(), recall.c_str(),
                  mass.c_str(), bytes.c_str(), tail.c_str());
    std::string trimmed = line;
    trimmed.erase(trimmed.find_last_not_of(' ') + 1);
    text += trimmed + "\n";
  };
  auto row = [&](const std::string &name, const std::string &p, double recall,
                 double mass, double bytes, const std::string &tail) {
    columns(name, p, percentText(recall), percentText(mass), bytesText(bytes),
            tail);
  };
  columns("unit", "P", "recall", "mass recall", "bytes/token",
          objective + " at P = " + sizes);
  for (const AdaptUnit &unit : r.units) {
    const AdaptMeasurement &m = unit.measurements[unit.chosen];
    std::string each;
    for (size_t j = 0; j < unit.measurements.size(); ++j)
      each += (j ? " / " : "") + percentText(unit.measurements[j].objective);
    row(unit.name, std::to_string(m.poolSize), m.recall, m.massRecall,
        m.bytesPerToken, each);
  }
  row("adaptive", "", r.adaptive.recall, r.adaptive.massRecall,
      r.adaptive.bytesPerToken, "");
  row("uniform", std::to_string(r.uniform.poolSize), r.uniform.recall,
      r.uniform.massRecall, r.uniform.bytesPerToken, "");
  char gain[160];
  std::snprintf(gain, sizeof(gain),
                "gain over uniform P = %lld: %+.3f points of mean recall, "
                "%+.3f of mean mass recall\n",
                (long long)r.uniform.poolSize,
                100.0 * (r.adaptive.recall - r.uniform.recall),
                100.0 * (r.adaptive.massRecall - r.uniform.massRecall));
  return text + gain;
}

std::string formatAdaptJson(const AdaptReport &r) {
  auto object = [](const std::vector<std::pair<std::string, std::string>>
                       &fields) {
    std::string json = "{";
    for (size_t i = 0; i < fields.size(); ++i)
      json += (i ? ", " : "") + quoted(fields[i].first) + ": " +
              fields[i].second;
    return json + "}";
  };
  auto measurement = [&](const AdaptMeasurement &m) {
    return std::vector<std::pair<std::string, std::string>>{
        {"pool_size", std::to_string(m.poolSize)},
        {"recall", exactNumber(m.recall)},
        {"mass_recall", exactNumber(m.massRecall)},
        {"objective", exactNumber(m.objective)},
        {"bytes_per_token", exactNumber(m.bytesPerToken)}};
  };
  auto totals = [&](const AdaptTotals &t, bool uniform) {
    std::vector<std::pair<std::string, std::string>> fields;
    if (uniform)
      fields.push_back({"pool_size", std::to_string(t.poolSize)});
    fields.push_back({"recall", jsonNumber(t.recall)});
    fields.push_back({"mass_recall", jsonNumber(t.massRecall)});
    fields.push_back({"objective", jsonNumber(t.objective)});
    fields.push_back({"bytes_per_token", exactNumber(t.bytesPerToken)});
    return object(fields);
  };
  std::string units = "[";
  for (size_t u = 0; u < r.units.size(); ++u) {
    const AdaptUnit &unit = r.units[u];
    std::string measurements = "[";
    for (size_t j = 0; j < unit.measurements.size(); ++j)
      measurements +=
          (j ? ", " : "") + object(measurement(unit.measurements[j]));
    std::vector<std::pair<std::string, std::string>> fields{
        {"unit", quoted(unit.name)},
        {"function", quoted(unit.functionName)},
        {"key_sets", std::to_string(unit.keySets)},
        {"tokens", std::to_string(unit.tokens)},
        {"dim", std::to_string(unit.dim)},
        {"stored_dim", std::to_string(unit.storedDim)}};
    for (auto &field : measurement(unit.measurements[unit.chosen]))
      fields.push_back(field);
    fields.push_back({"measurements", measurements + "]"});
    units += (u ? ", " : "") + object(fields);
  }
  std::string sizes = "[";
  for (size_t j = 0; j < r.poolSizes.size(); ++j)
    sizes += (j ? ", " : "") + std::to_string(r.poolSizes[j]);
  return object({{"dump", quoted(r.dumpPath)},
                 {"budget", exactNumber(r.budget)},
                 {"budget_ratio", r.budgetRatio ? std::to_string(r.budgetRatio)
                                                : std::string("null")},
                 {"pool_sizes", sizes + "]"},
                 {"k", std::to_string(r.k)},
                 {"last", std::to_string(r.last)},
                 {"format", quoted(r.format)},
                 {"rotate", r.rotate ? "true" : "false"},
                 {"group", quoted(r.group)},
                 {"objective", quoted(r.objective)},
                 {"units", units + "]"},
                 {"adaptive", totals(r.adaptive, false)},
                 {"uniform", totals(r.uniform, true)}}) +
         "\n";
}

std::string formatAdaptPoolSizesJson(const AdaptReport &r) {
  std::string json = "{";
  for (size_t u = 0; u < r.units.size(); ++u)
    json += (u ? ", " : "") + quoted(r.units[u].name) + ": " +
            std::to_string(r.units[u].measurements[r.units[u].chosen].poolSize);
  return json + "}\n";
}

Status buildAdaptModule(const AdaptReport &r, std::string &text) {
  if (r.format != "fp8" && r.format != "i8")
    return Status::error("--emit needs --format=fp8 or i8: compress stores "
                         "codes and scales, --format=" +
                         r.format + " has none");
  text = "module {\n";
  for (const AdaptUnit &unit : r.units) {
    CompressSpec spec;
    spec.tokens = -1;
    spec.dim = unit.storedDim;
    spec.keyType = DType::F32;
    spec.poolSize = unit.measurements[unit.chosen].poolSize;
    spec.rotate = r.rotate;
    spec.codeType = r.format == "fp8" ? DType::F8E4M3FN : DType::I8;
    spec.name = unit.functionName;
    Status status;
    std::unique_ptr<Module> module = buildCompress(spec, status);
    if (!module)
      return Status::error(unit.name + ": " + status.message());
    // The function, without the module around it.
    std::string printed = module->str();
    size_t open = printed.find('{'), close = printed.rfind('}');
    if (open == std::string::npos || close == std::string::npos ||
        close <= open)
      return Status::error(unit.name + ": unexpected module text");
    size_t body = printed.find('\n', open);
    text += printed.substr(body + 1, close - body - 1);
  }
  text += "}\n";
  return Status();
}

} // namespace indexpool::fidelity
