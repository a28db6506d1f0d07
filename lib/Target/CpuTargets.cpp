//===- CpuTargets.cpp - the CPU targets the compiler knows ----------------===//
//
// The LLVM CPU names are LLVM 22's (llc -mcpu=help); each implies its ISA
// features, which Tooling/CpuTargetMachine.cpp reads from LLVM itself to
// check a host. Dot instructions per row: vdpbf16ps is AVX512_BF16,
// vpdpbusd AVX512_VNNI (Intel SDM vol. 2); bfdot is FEAT_BF16, sdot/udot
// FEAT_DotProd (Arm ARM), both in Neoverse V2 (Armv9.0-A). The 128-byte
// table lookup is vpermi2b zmm, AVX512_VBMI (Intel SDM vol. 2; Ice Lake and
// later, Zen 4 and later); AArch64's widest, tbl with four registers, looks
// up 64 bytes (Arm ARM).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Target/CpuTargets.h"

namespace indexpool::target {

const std::vector<CpuTarget> &allCpuTargets() {
  static const std::vector<CpuTarget> rows = {
      {"sapphirerapids", "x86_64", "x86_64-unknown-linux-gnu", "sapphirerapids",
       16, true, true, true,
       "Intel Xeon 4th gen: AVX-512 with VNNI, BF16, FP16 and AMX"},
      {"znver5", "x86_64", "x86_64-unknown-linux-gnu", "znver5", 16, true, true,
       true, "AMD Zen 5: AVX-512 with VNNI, BF16 and VBMI"},
      {"znver4", "x86_64", "x86_64-unknown-linux-gnu", "znver4", 16, true, true,
       true, "AMD Zen 4: AVX-512 with VNNI, BF16 and VBMI"},
      {"x86-64-v4", "x86_64", "x86_64-unknown-linux-gnu", "x86-64-v4", 16,
       false, false, false, "AVX-512 F/BW/CD/DQ/VL, no dot instructions"},
      {"x86-64-v3", "x86_64", "x86_64-unknown-linux-gnu", "x86-64-v3", 8, false,
       false, false, "AVX2 and FMA"},
      {"x86-64", "x86_64", "x86_64-unknown-linux-gnu", "x86-64", 4, false,
       false, false, "the x86-64 baseline every such CPU runs: SSE2 only"},
      {"neoverse-v2", "aarch64", "aarch64-unknown-linux-gnu", "neoverse-v2", 4,
       true, true, false,
       "Arm Neoverse V2 (Grace): NEON and SVE2 with dotprod and BF16"},
      {"aarch64", "aarch64", "aarch64-unknown-linux-gnu", "generic", 4, false,
       false, false, "the Armv8-A baseline: NEON only"},
  };
  return rows;
}

const CpuTarget *lookupCpuTarget(std::string_view name) {
  for (const CpuTarget &row : allCpuTargets())
    if (row.name == name)
      return &row;
  return nullptr;
}

std::string knownCpuTargetNames() {
  std::string names;
  for (const CpuTarget &row : allCpuTargets())
    names += (names.empty() ? "" : ", ") + std::string(row.name);
  return names;
}

std::string unknownCpuTargetMessage(std::string_view name) {
  return "unknown CPU target '" + std::string(name) +
         "'; known: " + knownCpuTargetNames() + " (or 'host')";
}

const CpuTarget *findCpuTarget(std::string_view name, std::string &error) {
  const CpuTarget *row = lookupCpuTarget(name);
  if (!row)
    error = unknownCpuTargetMessage(name);
  return row;
}

std::string cpuChipOf(std::string_view row) {
  return std::string(kCpuChip) + ":" + std::string(row);
}

bool parseCpuChip(std::string_view chip, std::string_view &row) {
  row = {};
  if (chip == kCpuChip)
    return true;
  if (chip.size() <= kCpuChip.size() || chip.substr(0, kCpuChip.size()) != kCpuChip ||
      chip[kCpuChip.size()] != ':')
    return false;
  row = chip.substr(kCpuChip.size() + 1);
  return true;
}

} // namespace indexpool::target
