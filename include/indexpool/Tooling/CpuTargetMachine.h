//===- CpuTargetMachine.h - a CPU target row, the host, LLVM ----*- C++ -*-===//
//
// What the CPU target table (Target/CpuTargets.h) needs from LLVM: the
// host's row (LLVM's host CPU feature detection), the check that a row runs
// on this host (its architecture and every ISA feature its LLVM CPU
// implies), and the TargetMachine the JIT and indexpool-compile --target=cpu
// compile with.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TOOLING_CPUTARGETMACHINE_H
#define INDEXPOOL_TOOLING_CPUTARGETMACHINE_H

#include "indexpool/Target/CpuTargets.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace mlir::indexpool {

using ::indexpool::target::CpuTarget;

/// Every feature `row`'s LLVM CPU implies (LLVM's names, sorted; ISA
/// features and tuning flags), as LLVM 22 defines the CPU.
std::vector<std::string> impliedFeatures(const CpuTarget &row);

/// The ISA features `row`'s LLVM CPU implies that this host lacks (LLVM's
/// names, sorted), but those of instructions LLVM emits only for their own
/// intrinsics (system instructions a VM may hide). Empty for a row of
/// another architecture: see cpuTargetRunsHere.
std::vector<std::string> missingHostFeatures(const CpuTarget &row);

/// True when code compiled for `row` runs on this host; else false with
/// `error` naming the row and what the host lacks (its architecture, or the
/// missing features).
bool cpuTargetRunsHere(const CpuTarget &row, std::string &error);

/// The first row (most capable first) that runs on this host, or nullptr
/// with `error` when none does (an architecture the table lacks).
const CpuTarget *hostCpuTarget(std::string &error);

/// The row `name` names ("" or "host": hostCpuTarget); with `toRun`, only
/// a row that runs here (cpuTargetRunsHere). Null with `error` otherwise.
const CpuTarget *resolveCpuTarget(const std::string &name, bool toRun,
                                  std::string &error);

/// A TargetMachine for `row` (its triple and CPU, aggressive optimization):
/// for the JIT (`forJit`: LLVM's JIT code model) or for objects
/// (position-independent code); null with `error`.
std::unique_ptr<llvm::TargetMachine>
makeCpuTargetMachine(const CpuTarget &row, bool forJit, std::string &error);

} // namespace mlir::indexpool

#endif // INDEXPOOL_TOOLING_CPUTARGETMACHINE_H
