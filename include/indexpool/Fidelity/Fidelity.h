//===- Fidelity.h - indexpool-fidelity in one call --------------*- C++ -*-===//
//
// Loads keys and queries (.npy, [T, D] f32), pools the keys and selects
// tokens for the last N causal decode queries through the compiled kernels
// (PooledSelection.h), and measures the result in float64 (Metrics.h).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_FIDELITY_FIDELITY_H
#define INDEXPOOL_FIDELITY_FIDELITY_H

#include "indexpool/API/Status.h"
#include "indexpool/Fidelity/PooledSelection.h"
#include "indexpool/Fidelity/Report.h"

#include <cstdint>
#include <string>

namespace indexpool::fidelity {

struct FidelityOptions {
  std::string keysPath;
  std::string queriesPath;
  /// Empty: no bias.
  std::string biasPath;
  int64_t poolSize = 4;
  int64_t k = 256;
  PoolFormat format = PoolFormat::None;
  bool rotate = false;
  bool normScores = false;
  int64_t last = 16;
};

/// Runs the whole measurement. Every bad file or setting is one line in the
/// returned Status.
Status runFidelity(const FidelityOptions &options, FidelityReport &report);

} // namespace indexpool::fidelity

#endif // INDEXPOOL_FIDELITY_FIDELITY_H
