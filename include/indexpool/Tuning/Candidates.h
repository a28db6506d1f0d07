//===- Candidates.h - the launches worth measuring per op -------*- C++ -*-===//
//
// For each indexpool op of a function, the launch configurations the tuner
// compiles and measures: on a GPU the fields its kernel reads on that chip
// (dialect/IndexPoolAttrs.td), on the CPU the vector width. Candidate 0 is
// always the cost model's choice (the CPU's default width), so that the
// measured winner is never slower than the model.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TUNING_CANDIDATES_H
#define INDEXPOOL_TUNING_CANDIDATES_H

#include "indexpool/Tuning/Plan.h"

#include <string>
#include <vector>

namespace mlir {
class Operation;
} // namespace mlir

namespace indexpool::tuning {

/// The CPU's vector widths, the default (CompileOptions::vectorWidth) first.
constexpr int kCpuVectorWidths[] = {8, 4, 16, 32};

struct OpCandidates {
  /// The op's mnemonic and its position among the function's indexpool ops.
  std::string op;
  int opIndex = 0;
  /// "T=1024, G=256, D=64, P=4": every static size of the op, the shape
  /// class of its database entries.
  std::string shapeClass;
  /// Deterministic: the model's choice first, then the others in ascending
  /// order of the cost model's estimate; at most the maximum asked for.
  std::vector<LaunchChoice> launches;
  /// Per launch, the cost model's estimate of the op's time in us
  /// (cost::estimateMicroseconds); -1 where there is none (the CPU).
  std::vector<double> estimatesUs;
};

/// The candidates of every configurable indexpool op of `function` (a
/// func.func with static shapes) for `chip` ("cpu" or a chip of the target
/// table): on a GPU every valid combination of the op's knobs, ranked by
/// the cost model's estimate, of which candidate 0 (the model's choice)
/// and the `maxCandidates` - 1 best are kept. On failure returns false
/// with `error`.
bool generateCandidates(mlir::Operation *function, const std::string &chip,
                        int maxCandidates, std::vector<OpCandidates> &out,
                        std::string &error);

/// "T=1024, G=256, D=64, P=4" from an op's sizes.
std::string shapeClassOf(
    const std::vector<std::pair<std::string, int64_t>> &sizes);

} // namespace indexpool::tuning

#endif // INDEXPOOL_TUNING_CANDIDATES_H
