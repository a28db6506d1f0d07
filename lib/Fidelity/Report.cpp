//===- Report.cpp - the fidelity numbers, as text or JSON -----------------===//

#include "indexpool/Fidelity/Report.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace indexpool::fidelity {

static std::string number(double value) {
  if (!std::isfinite(value))
    return "null";
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

static std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f%%", fraction * 100.0);
  return text;
}

static std::string degrees(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", value);
  return text;
}

std::string formatText(const FidelityReport &r) {
  std::string text;
  text += "keys: " + std::to_string(r.tokens) + " x " + std::to_string(r.dim) +
          ", pool size " + std::to_string(r.poolSize) + ", format " +
          r.format + (r.rotate ? ", rotated" : "") + ", scores " + r.score +
          "\n";
  text += "selection (k = " + std::to_string(r.k) + ", last " +
          std::to_string(r.queries) + " queries):\n";
  text += "  recall          mean " + percent(r.recall) + "  p10 " +
          percent(r.recallP10) + "\n";
  text += "  mass recall     mean " + percent(r.massRecall) + "\n";
  text += "pooled key vs its originals (" + std::to_string(r.groups) +
          " groups), degrees:\n";
  text += "  angle           mean " + degrees(r.angleMean) + "  median " +
          degrees(r.angleMedian) + "  p95 " + degrees(r.angleP95) + "\n";
  text += "reconstruction ||k_hat - k|| / ||k||, by residual kept:\n";
  auto line = [&](const char *name, const ErrorSummary &e) {
    text += std::string("  ") + name + "mean " + percent(e.mean) + "  p99 " +
            percent(e.p99) + "\n";
  };
  line("exact           ", r.reconExact);
  line("int8            ", r.reconI8);
  line("fp8             ", r.reconFP8);
  line("none            ", r.reconNone);
  return text;
}

std::string formatJson(const FidelityReport &r) {
  std::string json = "{";
  bool first = true;
  auto field = [&](const char *key, const std::string &value) {
    json += std::string(first ? "" : ", ") + "\"" + key + "\": " + value;
    first = false;
  };
  field("recall", number(r.recall));
  field("recall_p10", number(r.recallP10));
  field("mass_recall", number(r.massRecall));
  field("angle_mean_deg", number(r.angleMean));
  field("angle_median_deg", number(r.angleMedian));
  field("angle_p95_deg", number(r.angleP95));
  field("recon_none", number(r.reconNone.mean));
  field("recon_i8", number(r.reconI8.mean));
  field("recon_fp8", number(r.reconFP8.mean));
  field("recon_exact", number(r.reconExact.mean));
  field("recon_none_p99", number(r.reconNone.p99));
  field("recon_i8_p99", number(r.reconI8.p99));
  field("recon_fp8_p99", number(r.reconFP8.p99));
  field("recon_exact_p99", number(r.reconExact.p99));
  field("tokens", std::to_string(r.tokens));
  field("dim", std::to_string(r.dim));
  field("pool_size", std::to_string(r.poolSize));
  field("k", std::to_string(r.k));
  field("queries", std::to_string(r.queries));
  field("groups", std::to_string(r.groups));
  field("format", "\"" + r.format + "\"");
  field("rotate", r.rotate ? "true" : "false");
  field("score", "\"" + r.score + "\"");
  return json + "}\n";
}

} // namespace indexpool::fidelity
