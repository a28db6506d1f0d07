//===- Collect.cpp - measurements.json and the tuning database ------------===//

#include "indexpool/Tuning/Collect.h"

#include <cstdio>
#include <map>
#include <utility>

namespace indexpool::tuning {

TimeSource cpuSource() { return {"cpu", "CPU time"}; }
TimeSource gpuSource() { return {"gpu", "GPU time"}; }
TimeSource fakeDriverSource() {
  return {"fake-cuda-driver", "fake-driver time, not a GPU time"};
}

namespace {

/// A time in ms with enough digits for sub-microsecond kernels.
std::string formatMs(double ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", ms);
  return buffer;
}

} // namespace

std::string databaseEntry(const Plan &plan, const Candidate &candidate) {
  std::string out = "{\"chip\": " + jsonQuote(plan.chip) +
                    ", \"op\": " + jsonQuote(candidate.op);
  // No static sizes: an entry for every shape of the op.
  if (!candidate.shapeClass.empty())
    out += ", \"shape_class\": " + jsonQuote(candidate.shapeClass);
  return out + ", \"launch\": " +
         launchToJson(candidate.launch, plan.isCpu()) + "}";
}

std::vector<int> chooseBest(const Plan &plan,
                            const std::vector<Measurement> &measurements) {
  std::map<int, const Measurement *> byId;
  for (const Measurement &m : measurements)
    if (m.ok)
      byId[m.candidate] = &m;
  // Keyed on (op, shape class): two ops of one kind and shape class get the
  // one entry that the database can hold for them.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, int> best;
  for (const Candidate &c : plan.candidates) {
    std::pair<std::string, std::string> key{c.op, c.shapeClass};
    auto it = byId.find(c.id);
    if (!best.count(key)) {
      order.push_back(key);
      best[key] = -1;
    }
    if (it == byId.end())
      continue;
    int &chosen = best[key];
    // Strictly faster only: ties keep the earlier candidate (the model's).
    if (chosen < 0 || it->second->medianMs < byId[chosen]->medianMs)
      chosen = c.id;
  }
  std::vector<int> ids;
  for (const auto &key : order)
    ids.push_back(best[key]);
  return ids;
}

bool collect(const std::string &directory, const std::string &dbPath,
             const Plan &plan, const std::vector<Measurement> &measurements,
             const TimeSource &source, const std::string &note,
             std::vector<std::string> &leftOut, std::string &error) {
  std::string text = "{\n  \"function\": " + jsonQuote(plan.function) +
                     ",\n  \"chip\": " + jsonQuote(plan.chip) +
                     ",\n  \"source\": " + jsonQuote(source.name) +
                     ",\n  \"time_label\": " + jsonQuote(source.label) +
                     ",\n  \"unit\": \"ms\",";
  if (!note.empty())
    text += "\n  \"note\": " + jsonQuote(note) + ",";
  text += "\n  \"candidates\": [";
  bool first = true;
  for (const Measurement &m : measurements) {
    if (m.candidate < 0 || size_t(m.candidate) >= plan.candidates.size())
      continue;
    const Candidate &c = plan.candidates[m.candidate];
    text += first ? "\n" : ",\n";
    first = false;
    text += "    {\"id\": " + std::to_string(c.id) + ", \"op\": " +
            jsonQuote(c.op) + ", \"op_index\": " + std::to_string(c.opIndex) +
            ", \"candidate\": " + std::to_string(c.number) +
            ", \"shape_class\": " + jsonQuote(c.shapeClass) +
            ", \"status\": " +
            (m.ok ? "\"ok\"" : m.skipped ? "\"skipped\"" : "\"failed\"");
    if (!m.ok)
      text += (m.skipped ? ", \"reason\": " : ", \"error\": ") +
              jsonQuote(m.error);
    if (c.estimateUs >= 0)
      text += ", \"estimate_us\": " + formatMs(c.estimateUs);
    text += ",\n     \"median_ms\": " + (m.ok ? formatMs(m.medianMs) : "null") +
            ", \"samples_ms\": [";
    for (size_t i = 0; i < m.samplesMs.size(); ++i)
      text += (i ? ", " : "") + formatMs(m.samplesMs[i]);
    text += "]}";
  }
  text += "\n  ],\n  \"chosen\": [";
  std::vector<int> chosen = chooseBest(plan, measurements);
  for (size_t i = 0; i < chosen.size(); ++i)
    text += (i ? ", " : "") + std::to_string(chosen[i]);
  text += "]\n}\n";
  if (!writeTextFile(joinPath(directory, "measurements.json"), text, error))
    return false;

  // Per (op, shape class) in the order of chooseBest: whether any of its
  // candidates was measured (ok or failed).
  std::vector<std::pair<std::string, std::string>> keys;
  std::map<std::pair<std::string, std::string>, bool> measuredAny;
  for (const Candidate &c : plan.candidates) {
    std::pair<std::string, std::string> key{c.op, c.shapeClass};
    if (!measuredAny.count(key))
      keys.push_back(key);
    bool measured = false;
    for (const Measurement &m : measurements)
      if (m.candidate == c.id && !m.skipped)
        measured = true;
    measuredAny[key] = measuredAny[key] || measured;
  }
  std::string db = "[";
  int entries = 0;
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (chosen[i] < 0 && measuredAny[keys[i]]) {
      // Every candidate of this op that ran failed: no entry would be
      // honest.
      error = "every candidate of " + keys[i].first +
              " that was measured failed (see " +
              joinPath(directory, "measurements.json") +
              "): no database written";
      return false;
    }
    if (chosen[i] < 0) {
      // Nothing measured (a signal stopped the run before it): without an
      // entry the cost model's launch stands, which is candidate 0's.
      leftOut.push_back(keys[i].first + " (" + keys[i].second +
                        "): no candidate measured, no entry (the cost "
                        "model's launch stands)");
      continue;
    }
    db += (entries++ ? ",\n " : "\n ") +
          databaseEntry(plan, plan.candidates[chosen[i]]);
  }
  if (entries == 0) {
    error = "no candidate was measured (see " +
            joinPath(directory, "measurements.json") +
            "): no database written";
    return false;
  }
  db += "\n]\n";
  return writeTextFile(dbPath, db, error);
}

void printChoices(const Plan &plan,
                  const std::vector<Measurement> &measurements,
                  const TimeSource &source, std::FILE *out) {
  auto medianOf = [&](int id) -> const Measurement * {
    for (const Measurement &m : measurements)
      if (m.candidate == id && m.ok)
        return &m;
    return nullptr;
  };
  for (int id : chooseBest(plan, measurements)) {
    if (id < 0)
      continue;
    const Candidate &c = plan.candidates[id];
    double ms = medianOf(id)->medianMs;
    std::fprintf(out, "%s (op %d, %s): candidate %d, %s, median %.4g ms (%s)",
                 c.op.c_str(), c.opIndex, c.shapeClass.c_str(), c.number,
                 c.launch.describe(plan.isCpu()).c_str(), ms,
                 source.label.c_str());
    // The same run's candidate 0 of this op: the untuned compile.
    const Measurement *model = nullptr;
    for (const Candidate &other : plan.candidates)
      if (other.opIndex == c.opIndex && other.number == 0)
        model = medianOf(other.id);
    if (model && ms > 0)
      std::fprintf(out, "; tuned vs cost model %.2fx (candidate 0: %.4g ms)",
                   model->medianMs / ms, model->medianMs);
    else
      std::fprintf(out, "; cost model's candidate 0 not measured");
    std::fputc('\n', out);
  }
}

} // namespace indexpool::tuning
