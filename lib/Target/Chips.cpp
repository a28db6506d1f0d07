//===- Chips.cpp - the per-chip facts of the NVIDIA GPUs we target --------===//
//
// Sources, cited per number below:
//  [CC]    CUDA C++ Programming Guide, "Technical Specifications per Compute
//          Capability" (compute-capabilities appendix); the architecture
//          tuning guides restate the same per-SM limits:
//          docs.nvidia.com/cuda/{ampere,ada,hopper,blackwell}-tuning-guide.
//  [BW-TG] Blackwell tuning guide, "Occupancy" (read for this table): 64
//          warps/SM on 10.0 and 48 on 12.0; 64K registers; 255 registers per
//          thread; 32 blocks/SM on 10.0 and 12.0; shared memory per SM 228 KB
//          (10.0) and 128 KB (12.0, the L1/shared capacity; the device
//          attribute reports 100 KB); per block 227 KB (10.0), 99 KB (12.0).
//  [DQ]    deviceQuery / cudaGetDeviceProperties output quoted in public bug
//          reports: RTX 5090 (pytorch/pytorch#161376: 170 SMs, 1536 threads/SM,
//          65536 registers, 102400 B shared/SM, 101376 B opt-in per block);
//          RTX 4080, CC 8.9 (102400 B shared/SM); A100 SXM4 40GB (108 SMs,
//          41943040 B L2).
//  [WP]    NVIDIA architecture whitepapers (A100, H100) and product
//          datasheets (A100, H100, L4, RTX A6000, DGX B200, RTX 5090 page).
//  [C&C]   Chips and Cheese microbenchmark articles (H100 2023, B200 2025).
// "Checked" marks numbers seen in a source while writing this table;
// "unchecked" numbers are the commonly published values, not re-read here.
//
// The PTX version of each chip was checked with the tools themselves:
// `llc -march=nvptx64 -mcpu=CHIP -mattr=+ptxNN` (LLVM 22) on a small kernel
// and `ptxas -arch=CHIP` (CUDA 13.0) on its output; with the fp8 conversion
// intrinsic (llvm.nvvm.ff.to.e4m3x2.rn) LLVM needs PTX 8.1 on sm_89 and 7.8
// on sm_90 (PTX ISA: cvt .e4m3x2 since 7.8 on sm_90, sm_89 since 8.1).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Target/Chips.h"

namespace indexpool::target {

// Facts shared by every chip in the table [CC], checked for 10.0/12.0
// [BW-TG] and 12.0 [DQ]: 1024 threads per block, 64K 32-bit registers per
// SM and per block, 255 registers per thread (Chips.h).

static std::vector<ChipInfo> makeTable() {
  std::vector<ChipInfo> chips;

  ChipInfo a100{};
  a100.name = "sm_80";
  a100.computeCapability = 80;
  a100.archSpecific = false;
  a100.part = "A100 SXM4 80GB";
  a100.smCount = 108;              // [WP] A100 whitepaper (128 on the full
                                   // GA100, 108 enabled); checked ([DQ] A100)
  a100.maxThreadsPerSM = 2048;     // [CC] 64 warps; unchecked
  a100.maxBlocksPerSM = 32;        // [CC]; unchecked
  a100.maxThreadsPerBlock = kMaxThreadsPerBlock;
  a100.registersPerSM = kRegistersPerSM;
  a100.maxRegistersPerThread = kMaxRegistersPerThread;
  a100.sharedMemPerSMKiB = 164;    // [CC] checked (quoted by NVlabs/curobo#705)
  a100.sharedMemPerBlockKiB = 163; // [CC]; unchecked
  a100.l2MiB = 40;                 // [WP] A100 whitepaper; checked ([DQ] A100:
                                   // L2 Cache Size 41943040 bytes)
  a100.dramGBps = 2039;            // [WP] A100 80GB SXM datasheet (40GB SXM:
                                   // 1555, 80GB PCIe: 1935); checked
  a100.ptxVersion = 70;            // first PTX ISA with sm_80
  a100.hasFp8Convert = false;      // e4m3x2 cvt needs sm_89+
  chips.push_back(a100);

  // The RTX A6000, not the RTX 3090: the professional GA102 part (like the
  // A40) that servers and clouds deploy for inference, with 48 GB for a long
  // key cache; it enables the full 84 SMs (the 3090 has 82, 936 GB/s).
  ChipInfo a6000{};
  a6000.name = "sm_86";
  a6000.computeCapability = 86;
  a6000.archSpecific = false;
  a6000.part = "RTX A6000";
  a6000.smCount = 84;              // [WP] A6000 datasheet (10752 CUDA cores /
                                   // 128 per SM); checked (spec listings)
  a6000.maxThreadsPerSM = 1536;    // [CC] 48 warps; checked (pytorch#45889)
  a6000.maxBlocksPerSM = 16;       // [CC]; unchecked
  a6000.maxThreadsPerBlock = kMaxThreadsPerBlock;
  a6000.registersPerSM = kRegistersPerSM;
  a6000.maxRegistersPerThread = kMaxRegistersPerThread;
  a6000.sharedMemPerSMKiB = 100;   // [CC] checked (quoted by NVlabs/curobo#705)
  a6000.sharedMemPerBlockKiB = 99; // [CC]; unchecked
  a6000.l2MiB = 6;                 // [WP] GA102; checked (spec listings)
  a6000.dramGBps = 768;            // [WP] A6000 datasheet; checked
  a6000.ptxVersion = 71;           // first PTX ISA with sm_86
  a6000.hasFp8Convert = false;
  chips.push_back(a6000);

  // The L4, the Ada part deployed for inference in clouds. The RTX 4090
  // (also sm_89) has 128 SMs, 72 MB L2 and 1008 GB/s: the same per-SM
  // limits, so the choices below differ only where SM count and bandwidth
  // enter.
  ChipInfo l4{};
  l4.name = "sm_89";
  l4.computeCapability = 89;
  l4.archSpecific = false;
  l4.part = "L4";
  l4.smCount = 58;                 // 7424 CUDA cores / 128 per SM (spec
                                   // listings; one lists 60 SMs with the same
                                   // 7424 cores); the L4 datasheet gives no
                                   // SM count: not confirmed from NVIDIA
  l4.maxThreadsPerSM = 1536;       // [CC] 48 warps; unchecked
  l4.maxBlocksPerSM = 24;          // [CC]; unchecked
  l4.maxThreadsPerBlock = kMaxThreadsPerBlock;
  l4.registersPerSM = kRegistersPerSM;
  l4.maxRegistersPerThread = kMaxRegistersPerThread;
  l4.sharedMemPerSMKiB = 100;      // [CC] checked ([DQ] RTX 4080, CC 8.9)
  l4.sharedMemPerBlockKiB = 99;    // [CC]; unchecked
  l4.l2MiB = 48;                   // [WP] L4 datasheet; checked (listings)
  l4.dramGBps = 300;               // [WP] L4 datasheet; checked
  l4.ptxVersion = 81;              // sm_89 needs 7.8; the e4m3x2 cvt on
                                   // sm_89 needs 8.1 (checked with llc)
  l4.hasFp8Convert = true;
  chips.push_back(l4);

  ChipInfo h100{};
  h100.name = "sm_90";
  h100.computeCapability = 90;
  h100.archSpecific = false;
  h100.part = "H100 SXM5 80GB";
  h100.smCount = 132;              // [WP] H100 whitepaper; checked ([C&C])
  h100.maxThreadsPerSM = 2048;     // [CC] 64 warps; checked (Modal glossary)
  h100.maxBlocksPerSM = 32;        // [CC]; checked (Modal glossary)
  h100.maxThreadsPerBlock = kMaxThreadsPerBlock;
  h100.registersPerSM = kRegistersPerSM;
  h100.maxRegistersPerThread = kMaxRegistersPerThread;
  h100.sharedMemPerSMKiB = 228;    // [CC] checked
  h100.sharedMemPerBlockKiB = 227; // [CC]; unchecked for 9.0 (10.0 checked)
  h100.l2MiB = 50;                 // [WP] H100 whitepaper; [C&C] checked for
                                   // H100 PCIe, SXM5 unchecked
  h100.dramGBps = 3350;            // [WP] H100 SXM datasheet; checked (the
                                   // H200, same chip, has 4800)
  h100.ptxVersion = 78;            // first PTX ISA with sm_90; has the cvt
  h100.hasFp8Convert = true;
  chips.push_back(h100);

  // The same part, compiled for its architecture-specific features.
  ChipInfo h100a = h100;
  h100a.name = "sm_90a";
  h100a.archSpecific = true;
  h100a.ptxVersion = 80;           // first PTX ISA with sm_90a
  chips.push_back(h100a);

  ChipInfo b200{};
  b200.name = "sm_100";
  b200.computeCapability = 100;
  b200.archSpecific = false;
  b200.part = "B200";
  b200.smCount = 148;              // 2 dies x 74 SMs; checked ([C&C] B200)
  b200.maxThreadsPerSM = 2048;     // [BW-TG] 64 warps; checked
  b200.maxBlocksPerSM = 32;        // [BW-TG]; checked
  b200.maxThreadsPerBlock = kMaxThreadsPerBlock;
  b200.registersPerSM = kRegistersPerSM;
  b200.maxRegistersPerThread = kMaxRegistersPerThread;
  b200.sharedMemPerSMKiB = 228;    // [BW-TG]; checked
  b200.sharedMemPerBlockKiB = 227; // [BW-TG]; checked
  b200.l2MiB = 126;                // measured capacity ([C&C] B200, as quoted
                                   // by a summary); NVIDIA publishes none
  b200.dramGBps = 8000;            // [WP] DGX B200 datasheet, HBM3e "8 TB/s"
                                   // per GPU; checked (several listings)
  b200.ptxVersion = 86;            // first PTX ISA with sm_100
  b200.hasFp8Convert = true;
  chips.push_back(b200);

  ChipInfo rtx5090{};
  rtx5090.name = "sm_120";
  rtx5090.computeCapability = 120;
  rtx5090.archSpecific = false;
  rtx5090.part = "GeForce RTX 5090";
  rtx5090.smCount = 170;           // [DQ] checked; [WP] RTX 5090 spec page
  rtx5090.maxThreadsPerSM = 1536;  // [BW-TG] 48 warps; [DQ] checked
  rtx5090.maxBlocksPerSM = 32;     // [BW-TG]; checked
  rtx5090.maxThreadsPerBlock = kMaxThreadsPerBlock;
  rtx5090.registersPerSM = kRegistersPerSM;
  rtx5090.maxRegistersPerThread = kMaxRegistersPerThread;
  rtx5090.sharedMemPerSMKiB = 100; // [DQ] 102400 B, checked ([BW-TG] gives
                                   // 128 KB: the L1/shared capacity)
  rtx5090.sharedMemPerBlockKiB = 99; // [BW-TG] and [DQ] 101376 B; checked
  rtx5090.l2MiB = 96;              // [WP] GB202 as configured on the 5090;
                                   // checked (review spec tables)
  rtx5090.dramGBps = 1792;         // 512-bit GDDR7 at 28 Gb/s; checked
  rtx5090.ptxVersion = 87;         // first PTX ISA with sm_120
  rtx5090.hasFp8Convert = true;
  chips.push_back(rtx5090);

  return chips;
}

const std::vector<ChipInfo> &allChips() {
  static const std::vector<ChipInfo> chips = makeTable();
  return chips;
}

const ChipInfo *lookupChip(std::string_view name) {
  for (const ChipInfo &chip : allChips())
    if (chip.name == name)
      return &chip;
  return nullptr;
}

std::string unknownChipMessage(std::string_view name, std::string_view extra) {
  return "unknown chip '" + std::string(name) + "'; known chips: " +
         (extra.empty() ? "" : std::string(extra) + ", ") + knownChipNames();
}

const ChipInfo *findChip(std::string_view name, std::string &error) {
  const ChipInfo *chip = lookupChip(name);
  if (!chip)
    error = unknownChipMessage(name);
  return chip;
}

bool isPtxVersion(int version) {
  // `llc -march=nvptx64 -mattr=help` (LLVM 22): +ptx70 ... +ptx78,
  // +ptx80 ... +ptx88 and +ptx90 (and older ones no chip here uses).
  return (version >= 70 && version <= 78) || (version >= 80 && version <= 88) ||
         version == kNewestPtxVersion;
}

std::string knownChipNames() {
  std::string names;
  for (const ChipInfo &chip : allChips()) {
    if (!names.empty())
      names += ", ";
    names += chip.name;
  }
  return names;
}

std::string threadsPerBlockRule(int64_t threads) {
  if (threads >= kWarpSize && threads <= kMaxThreadsPerBlock &&
      threads % kWarpSize == 0)
    return "";
  return "threads-per-block must be a multiple of 32 in [32, 1024], got " +
         std::to_string(threads);
}

std::string vectorWidthRule(int64_t lanes) {
  if (isValidVectorWidth(lanes))
    return "";
  return "vector width must be a power of two from 1 to " +
         std::to_string(kMaxVectorWidth) + ", got " + std::to_string(lanes);
}

bool parseChipName(std::string_view name, int &major, int &minor,
                   bool &archSpecific) {
  if (name.substr(0, 3) != "sm_")
    return false;
  size_t end = 3;
  while (end < name.size() && name[end] >= '0' && name[end] <= '9')
    ++end;
  size_t digits = end - 3;
  if (digits < 2 || digits > 4)
    return false;
  archSpecific = false;
  if (end < name.size()) {
    if (end + 1 != name.size() || name[end] < 'a' || name[end] > 'z')
      return false;
    archSpecific = true;
  }
  major = 0;
  for (size_t i = 3; i + 1 < end; ++i)
    major = 10 * major + (name[i] - '0');
  minor = name[end - 1] - '0';
  return true;
}

} // namespace indexpool::target
