//===- CpuTargets.h - the CPU targets the compiler knows ---------*- C++ -*-===//
//
// One row per CPU target, parallel to the GPU chips (Chips.h): the LLVM
// triple and CPU the code is compiled for, the ISA features that code may
// use (checked against the host before anything runs), the vector width
// the loops over D use, and the dot-product instructions the target has.
// The JIT picks the first row (most capable first) whose features the host
// has; --cpu=NAME (indexpool-run, indexpool-compile --target=cpu, the API,
// Python) names another. Plain C++17, no LLVM: the facts only; the host
// detection and the target machines are in Tooling/CpuTargetMachine.h.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TARGET_CPUTARGETS_H
#define INDEXPOOL_TARGET_CPUTARGETS_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace indexpool::target {

struct CpuTarget {
  /// The name --cpu takes: "x86-64-v3", "znver4", "neoverse-v2".
  std::string_view name;
  /// "x86_64" or "aarch64" (llvm::Triple's architecture names).
  std::string_view arch;
  /// The triple and LLVM CPU (-mcpu) the code is compiled for; the CPU
  /// implies its ISA features.
  std::string_view triple;
  std::string_view llvmCpu;
  /// f32 lanes of the vectors over D (the register width / 32).
  int64_t vectorWidth;
  /// Dot-product instructions: a bf16 pair dot with f32 accumulation
  /// (vdpbf16ps, bfdot), an int8 dot with i32 accumulation (vpdpbusd,
  /// sdot/udot).
  bool bf16Dot;
  bool int8Dot;
  /// A lookup of 64 bytes in a 128-byte table in one instruction (vpermi2b
  /// on 512-bit registers, AVX512_VBMI): FP8 key codes are decoded to bf16
  /// with it (ScoreRows.h). NEON's tbl takes at most 64 bytes.
  bool byteTable128;
  /// What the row stands for, for --help and errors.
  std::string_view description;
};

/// Every row, most capable first within each architecture.
const std::vector<CpuTarget> &allCpuTargets();

/// The row named `name`, or nullptr.
const CpuTarget *lookupCpuTarget(std::string_view name);

/// "x86-64-v3, x86-64-v4, ...", for --help and errors.
std::string knownCpuTargetNames();

/// The one message for a name the table does not have: "unknown CPU target
/// 'X'; known: ...".
std::string unknownCpuTargetMessage(std::string_view name);

/// lookupCpuTarget, with `error` set to unknownCpuTargetMessage.
const CpuTarget *findCpuTarget(std::string_view name, std::string &error);

/// The "chip" of the tuning database's CPU entries and CPU tuning plans:
/// "cpu" (every row) or "cpu:NAME" (row NAME only; what indexpool-tune
/// writes, as choices measured on one CPU need not suit another).
inline constexpr std::string_view kCpuChip = "cpu";
/// "cpu:NAME".
std::string cpuChipOf(std::string_view row);
/// Whether `chip` is a CPU chip ("cpu" or "cpu:..."); `row` gets what
/// follows "cpu:" ("" for "cpu"), which the caller checks against the table.
bool parseCpuChip(std::string_view chip, std::string_view &row);

} // namespace indexpool::target

#endif // INDEXPOOL_TARGET_CPUTARGETS_H
