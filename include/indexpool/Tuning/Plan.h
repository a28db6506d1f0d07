//===- Plan.h - the candidates a tuning run measures ------------*- C++ -*-===//
//
// DIR/plan.json, written by indexpool-tune and read by indexpool-tune-measure
// (docs/tuning.md): the function, the chip, the input shapes and one entry
// per candidate launch of one op. MLIR-free: the measuring tool builds on a
// GPU machine that has only CUDA and a C++ compiler.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TUNING_PLAN_H
#define INDEXPOOL_TUNING_PLAN_H

#include "indexpool/Target/CpuTargets.h"

#include <cstdint>
#include <string>
#include <vector>

namespace indexpool::tuning {

/// The chip of CPU plans and CPU tuning-database entries: "cpu" or
/// "cpu:NAME" (Target/CpuTargets.h).
using ::indexpool::target::kCpuChip;
/// Whether `chip` is a CPU chip.
inline bool isCpuChip(std::string_view chip) {
  std::string_view row;
  return ::indexpool::target::parseCpuChip(chip, row);
}

/// One launch configuration of one op. GPU plans use the five fields of
/// #indexpool.launch, CPU plans only vectorWidth.
struct LaunchChoice {
  int64_t threadsPerBlock = 0;
  int64_t itemsPerBlock = 0;
  int64_t elementsPerThread = 0;
  int64_t vectorBytes = 0;
  /// "tiled" or "grid_stride".
  std::string grid;
  int64_t vectorWidth = 0;

  bool operator==(const LaunchChoice &other) const;
  /// "threads=256 items=4 ept=8 vb=16 tiled" or "vector_width=8".
  std::string describe(bool cpu) const;
};

struct Candidate {
  /// Position in the plan (0, 1, ...): the order of evaluation.
  int id = 0;
  /// The op's mnemonic ("compress") and its position among the function's
  /// indexpool ops.
  std::string op;
  int opIndex = 0;
  /// Position among the op's candidates; 0 is the cost model's choice.
  int number = 0;
  /// The tuning database's shape class of the op: "T=1024, G=256, D=64, P=4".
  std::string shapeClass;
  LaunchChoice launch;
  /// The cost model's estimate of the op's time with this launch, in us
  /// ("estimate_us"; an estimate, not a measurement); -1 where there is
  /// none (the CPU, or a plan written before estimates).
  double estimateUs = -1;
  /// Relative to the plan's folder: the one-entry database the candidate
  /// was compiled with, and (GPU) the manifest and binary.
  std::string tuningDb;
  std::string manifest;
  std::string artifact;
};

struct Plan {
  std::string function;
  std::string chip;
  std::string source;
  std::vector<std::vector<int64_t>> inputShapes;
  std::vector<Candidate> candidates;

  bool isCpu() const { return isCpuChip(chip); }
};

/// The "launch" object of a plan or database entry: the five GPU fields,
/// or {"vector_width": W} on the CPU.
std::string launchToJson(const LaunchChoice &launch, bool cpu);

/// The JSON text of `plan`.
std::string planToJson(const Plan &plan);

/// Reads DIR/plan.json (DIR: `directory`) and checks that every file a
/// candidate names exists. On failure `error` says which file and what is
/// wrong.
bool loadPlan(const std::string &directory, Plan &plan, std::string &error);

/// `directory` + "/" + `name`.
std::string joinPath(const std::string &directory, const std::string &name);

/// Writes `text` to `path` through a temporary file renamed over it, so
/// that a reader (or a tool killed while writing) never sees part of a
/// file; false with `error` when it cannot.
bool writeTextFile(const std::string &path, const std::string &text,
                   std::string &error);

/// `text` as a JSON string literal (quotes and escapes included).
std::string jsonQuote(const std::string &text);

} // namespace indexpool::tuning

#endif // INDEXPOOL_TUNING_PLAN_H
