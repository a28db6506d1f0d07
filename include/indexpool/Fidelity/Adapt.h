//===- Adapt.h - a pool size per layer under a memory budget ----*- C++ -*-===//
//
// indexpool-adapt: from a dump of recorded keys and queries and a budget of
// index-cache bytes per token, choose the pool size P of every unit (a layer,
// or one head) that maximises the mean selection quality over the units.
//
// The dump: DIR/layerL/headH/{keys,queries}.npy (scripts/fidelity/real/
// make-dump.sh: one key set per head), or DIR/layerL/{keys,queries}.npy (one
// key per token per layer, as an LLM indexer has). Each key set at each
// candidate P is measured by runFidelity (Fidelity.h: the compiled kernels,
// the last N positions as causal decode queries); a layer's heads share one
// P and their measurements are averaged.
//
// Bytes per token of a key set at pool size P: (D' + 4) / P for FP8 / INT8
// codes with one f32 scale per pooled key, 4 D' / P for f32 pooled keys
// (--format=none), D' the stored dim (D, zero-padded to a power of two with
// --rotate); a unit's bytes are the sum over its key sets, the budget is the
// sum over all units.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_FIDELITY_ADAPT_H
#define INDEXPOOL_FIDELITY_ADAPT_H

#include "indexpool/API/Status.h"
#include "indexpool/Fidelity/PooledSelection.h"

#include <cstdint>
#include <string>
#include <vector>

namespace indexpool::fidelity {

/// What a unit is: a layer (its heads share P) or each head alone.
enum class AdaptGroup { Layer, Head };
/// What the choice maximises: mean mass recall or mean recall.
enum class AdaptObjective { MassRecall, Recall };

struct AdaptOptions {
  std::string dumpPath;
  /// Bytes per token over all units (> 0), or 0 to use budgetRatio.
  double budget = 0;
  /// The bytes of every unit at this pool size (> 0), when budget is 0.
  int64_t budgetRatio = 0;
  /// Candidate pool sizes (powers of two in [2, 64], k a multiple of each).
  std::vector<int64_t> poolSizes = {2, 4, 8};
  int64_t k = 256;
  PoolFormat format = PoolFormat::FP8;
  bool rotate = false;
  /// Calibration positions: the last N, as runFidelity's --last.
  int64_t last = 256;
  AdaptGroup group = AdaptGroup::Layer;
  AdaptObjective objective = AdaptObjective::MassRecall;
};

/// One unit at one pool size: the means over its key sets.
struct AdaptMeasurement {
  int64_t poolSize = 0;
  double recall = 0;
  double massRecall = 0;
  /// The chosen objective's value (one of the two above).
  double objective = 0;
  double bytesPerToken = 0;
};

struct AdaptUnit {
  /// "layer0" or "layer0/head3"; functionName "compress_layer0" or
  /// "compress_layer0_head3".
  std::string name;
  std::string functionName;
  /// Key sets (heads) in the unit, their tokens, dim and stored dim (equal
  /// over the unit's heads).
  int64_t keySets = 0;
  int64_t tokens = 0;
  int64_t dim = 0;
  int64_t storedDim = 0;
  /// One per candidate pool size, ascending.
  std::vector<AdaptMeasurement> measurements;
  /// Index of the chosen measurement.
  size_t chosen = 0;
};

/// Means over the units and the bytes per token summed over them.
struct AdaptTotals {
  int64_t poolSize = 0; // the uniform pool size; 0 for the adaptive choice
  double recall = 0;
  double massRecall = 0;
  double objective = 0;
  double bytesPerToken = 0;
};

struct AdaptReport {
  // The setup.
  std::string dumpPath;
  double budget = 0;
  int64_t budgetRatio = 0;
  std::vector<int64_t> poolSizes;
  int64_t k = 0;
  int64_t last = 0;
  std::string format;
  bool rotate = false;
  std::string group;
  std::string objective;
  // The choice, its totals and the uniform anchor: every unit at the
  // smallest candidate P whose total bytes fit the budget.
  std::vector<AdaptUnit> units;
  AdaptTotals adaptive;
  AdaptTotals uniform;
};

/// "2,4,8" -> {2, 4, 8} (ascending); a bad list is one line in the Status.
Status parsePoolSizes(const std::string &text, std::vector<int64_t> &sizes);

/// Reads the dump, measures every unit at every candidate P and chooses.
/// Every bad folder, file or setting is one line in the returned Status.
Status runAdapt(const AdaptOptions &options, AdaptReport &report);

/// Human-readable table: per unit the chosen P, recall, mass recall, bytes
/// per token and the objective at every candidate P; the totals; the
/// uniform anchor.
std::string formatAdaptText(const AdaptReport &report);
/// One JSON object: the setup, "units" (name, function, key_sets, tokens,
/// dim, stored_dim, pool_size, recall, mass_recall, objective,
/// bytes_per_token, and "measurements": the same at every candidate P,
/// with 17 significant digits so that a checker can redo the choice
/// exactly), "adaptive" and "uniform" totals.
std::string formatAdaptJson(const AdaptReport &report);
/// {"layer0": 4, ...}: each unit's chosen pool size, for engines.
std::string formatAdaptPoolSizesJson(const AdaptReport &report);

/// One module with each unit's compress function (keys [?, D'] f32, scores
/// [?] f32 -> codes, scales) at its chosen pool size, built with the C++
/// builders (API/Builders.h); needs --format=fp8 or i8.
Status buildAdaptModule(const AdaptReport &report, std::string &text);

} // namespace indexpool::fidelity

#endif // INDEXPOOL_FIDELITY_ADAPT_H
