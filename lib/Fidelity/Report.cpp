//===- Report.cpp - the fidelity numbers, as text or JSON -----------------===//

#include "indexpool/Fidelity/Report.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace indexpool::fidelity {

std::string jsonNumber(double value) {
  if (!std::isfinite(value))
    return "null";
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

std::string percentText(double fraction) {
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
          ", pool size " + std::to_string(r.poolSize) + ", format " + r.format +
          (r.rotate ? ", rotated" : "") + ", scores " + r.score +
          ", first stage " + r.firstStage +
          (r.firstStage == "max-aware"
               ? " (bound weight " + jsonNumber(r.boundWeight) + ", " +
                     r.radiusFormat + " radius)"
               : "") +
          "\n";
  text += "selection (k = " + std::to_string(r.k) +
          (r.refine ? ", refine " + std::to_string(r.refine) + " on " +
                          r.refineKeys + " keys"
                    : "") +
          ", last " + std::to_string(r.queries) + " queries):\n";
  text += "  recall          mean " + percentText(r.recall) + "  p10 " +
          percentText(r.recallP10) + "\n";
  text += "  mass recall     mean " + percentText(r.massRecall) + "\n";
  text += "pooled key vs its originals (" + std::to_string(r.groups) +
          " groups), degrees:\n";
  text += "  angle           mean " + degrees(r.angleMean) + "  median " +
          degrees(r.angleMedian) + "  p95 " + degrees(r.angleP95) + "\n";
  text += "reconstruction ||k_hat - k|| / ||k||, by residual kept:\n";
  auto line = [&](const char *name, const ErrorSummary &e) {
    text += std::string("  ") + name + "mean " + percentText(e.mean) + "  p99 " +
            percentText(e.p99) + "\n";
  };
  line("exact           ", r.reconExact);
  line("int8            ", r.reconI8);
  line("fp8             ", r.reconFP8);
  line("none            ", r.reconNone);
  char bytes[160];
  std::snprintf(bytes, sizeof(bytes),
                "bytes read per query: pooled %.0f + refine %.0f = %.3fx a "
                "token-level FP8 indexer (%.0f)\n",
                r.bytesPooled, r.bytesRefine,
                (r.bytesPooled + r.bytesRefine) / r.bytesTokenFP8,
                r.bytesTokenFP8);
  text += bytes;
  return text;
}

std::string formatJson(const FidelityReport &r) {
  std::string json = "{";
  bool first = true;
  auto field = [&](const char *key, const std::string &value) {
    json += std::string(first ? "" : ", ") + "\"" + key + "\": " + value;
    first = false;
  };
  field("recall", jsonNumber(r.recall));
  field("recall_p10", jsonNumber(r.recallP10));
  field("mass_recall", jsonNumber(r.massRecall));
  field("angle_mean_deg", jsonNumber(r.angleMean));
  field("angle_median_deg", jsonNumber(r.angleMedian));
  field("angle_p95_deg", jsonNumber(r.angleP95));
  field("recon_none", jsonNumber(r.reconNone.mean));
  field("recon_i8", jsonNumber(r.reconI8.mean));
  field("recon_fp8", jsonNumber(r.reconFP8.mean));
  field("recon_exact", jsonNumber(r.reconExact.mean));
  field("recon_none_p99", jsonNumber(r.reconNone.p99));
  field("recon_i8_p99", jsonNumber(r.reconI8.p99));
  field("recon_fp8_p99", jsonNumber(r.reconFP8.p99));
  field("recon_exact_p99", jsonNumber(r.reconExact.p99));
  field("bytes_pooled", jsonNumber(r.bytesPooled));
  field("bytes_refine", jsonNumber(r.bytesRefine));
  field("bytes_token_fp8", jsonNumber(r.bytesTokenFP8));
  field("bytes_total", jsonNumber(r.bytesPooled + r.bytesRefine));
  field("bytes_ratio",
        jsonNumber((r.bytesPooled + r.bytesRefine) / r.bytesTokenFP8));
  field("tokens", std::to_string(r.tokens));
  field("dim", std::to_string(r.dim));
  field("pool_size", std::to_string(r.poolSize));
  field("k", std::to_string(r.k));
  field("refine", std::to_string(r.refine));
  field("refine_keys", "\"" + r.refineKeys + "\"");
  field("first_stage", "\"" + r.firstStage + "\"");
  field("bound_weight", jsonNumber(r.boundWeight));
  field("radius_format", "\"" + r.radiusFormat + "\"");
  field("queries", std::to_string(r.queries));
  field("groups", std::to_string(r.groups));
  field("format", "\"" + r.format + "\"");
  field("rotate", r.rotate ? "true" : "false");
  field("score", "\"" + r.score + "\"");
  return json + "}\n";
}

} // namespace indexpool::fidelity
