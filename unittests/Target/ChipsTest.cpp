//===- ChipsTest.cpp - the target table is consistent ---------------------===//
#include "indexpool/Target/Chips.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace indexpool::target;

TEST(Chips, EverySpecChipIsThere) {
  // docs/design.md: sm_80 to sm_120 at least.
  for (const char *name :
       {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120"}) {
    const ChipInfo *chip = lookupChip(name);
    ASSERT_NE(chip, nullptr) << name;
    EXPECT_EQ(chip->name, name);
  }
}

TEST(Chips, UnknownNamesFail) {
  EXPECT_EQ(lookupChip(""), nullptr);
  EXPECT_EQ(lookupChip("sm_70"), nullptr);
  EXPECT_EQ(lookupChip("SM_90"), nullptr);
  EXPECT_EQ(lookupChip("sm_9"), nullptr);
  EXPECT_EQ(lookupChip("sm_90 "), nullptr);
}

TEST(Chips, NamesAreUniqueAndListed) {
  std::set<std::string_view> names;
  std::string listed = knownChipNames();
  for (const ChipInfo &chip : allChips()) {
    EXPECT_TRUE(names.insert(chip.name).second) << chip.name;
    EXPECT_NE(listed.find(std::string(chip.name)), std::string::npos);
  }
  EXPECT_EQ(listed.substr(0, 7), "sm_80, ");
}

TEST(Chips, NameMatchesComputeCapability) {
  for (const ChipInfo &chip : allChips()) {
    std::string expected = "sm_" + std::to_string(chip.computeCapability);
    if (chip.archSpecific)
      expected += "a";
    EXPECT_EQ(chip.name, expected);
  }
}

TEST(Chips, InternallyConsistent) {
  int previousCC = 0;
  for (const ChipInfo &chip : allChips()) {
    SCOPED_TRACE(std::string(chip.name));
    EXPECT_GE(chip.computeCapability, previousCC) << "table not in order";
    previousCC = chip.computeCapability;
    EXPECT_FALSE(chip.part.empty());
    EXPECT_GT(chip.smCount, 0);
    // Whole warps, and a block fits on an SM.
    EXPECT_EQ(chip.maxThreadsPerSM % 32, 0);
    EXPECT_EQ(chip.maxThreadsPerBlock % 32, 0);
    EXPECT_LE(chip.maxThreadsPerBlock, chip.maxThreadsPerSM);
    EXPECT_GE(chip.maxBlocksPerSM * 32, chip.maxThreadsPerSM / 32)
        << "fewer resident blocks than one-warp blocks could fill";
    EXPECT_GT(chip.maxBlocksPerSM, 0);
    // The register file holds a full SM at the occupancy limit.
    EXPECT_GE(chip.registersPerSM / chip.maxThreadsPerSM, 32);
    EXPECT_LE(chip.maxRegistersPerThread, 255);
    EXPECT_LE(chip.sharedMemPerBlockKiB, chip.sharedMemPerSMKiB);
    EXPECT_GT(chip.sharedMemPerBlockKiB, 48);
    EXPECT_GT(chip.l2MiB, 0);
    EXPECT_GT(chip.dramGBps, 0);
    // PTX ISA versions LLVM 22 and CUDA 13.0's ptxas both know: 7.0 .. 9.0.
    EXPECT_GE(chip.ptxVersion, 70);
    EXPECT_LE(chip.ptxVersion, 90);
    // cvt.rn.satfinite.e4m3x2.f32 exists from sm_89 on; LLVM selects it on
    // sm_89 from PTX 8.1 and on sm_90 from PTX 7.8.
    EXPECT_EQ(chip.hasFp8Convert, chip.computeCapability >= 89);
    if (chip.hasFp8Convert)
      EXPECT_GE(chip.ptxVersion, chip.computeCapability == 89 ? 81 : 78);
  }
}

TEST(Chips, OccupancyLimitsDifferWhereTheHardwareDoes) {
  // Data-center parts keep 64 warps per SM, GA10x/Ada/RTX Blackwell 48.
  for (const char *name : {"sm_80", "sm_90", "sm_90a", "sm_100"})
    EXPECT_EQ(lookupChip(name)->maxThreadsPerSM, 2048) << name;
  for (const char *name : {"sm_86", "sm_89", "sm_120"})
    EXPECT_EQ(lookupChip(name)->maxThreadsPerSM, 1536) << name;
}

TEST(Chips, ArchSpecificVariantIsTheSamePart) {
  const ChipInfo *base = lookupChip("sm_90");
  const ChipInfo *arch = lookupChip("sm_90a");
  ASSERT_TRUE(base && arch);
  EXPECT_TRUE(arch->archSpecific);
  EXPECT_FALSE(base->archSpecific);
  EXPECT_EQ(arch->part, base->part);
  EXPECT_EQ(arch->smCount, base->smCount);
  EXPECT_EQ(arch->dramGBps, base->dramGBps);
  EXPECT_GE(arch->ptxVersion, 80); // sm_90a needs PTX ISA 8.0
}

TEST(Chips, PtxVersionsAreTheOnesLLVMEmits) {
  for (const ChipInfo &chip : allChips())
    EXPECT_TRUE(isPtxVersion(chip.ptxVersion)) << chip.name;
  // No PTX ISA 7.9, 8.9 or 6.x-below-the-table: LLVM would silently emit
  // its default version instead.
  for (int bad : {0, 5, 60, 69, 79, 89, 91, 100, -78})
    EXPECT_FALSE(isPtxVersion(bad)) << bad;
  EXPECT_TRUE(isPtxVersion(kNewestPtxVersion));
}

TEST(Chips, OneThreadsPerBlockRule) {
  for (int64_t ok : {32, 64, 256, 992, 1024})
    EXPECT_EQ(threadsPerBlockRule(ok), "") << ok;
  for (int64_t bad : {-32, 0, 1, 31, 33, 48, 1056, 2048})
    EXPECT_EQ(threadsPerBlockRule(bad),
              "threads-per-block must be a multiple of 32 in [32, 1024], "
              "got " +
                  std::to_string(bad));
}

TEST(Chips, ChipNamesParseWithoutTheTable) {
  int major = -1, minor = -1;
  bool arch = false;
  ASSERT_TRUE(parseChipName("sm_90a", major, minor, arch));
  EXPECT_EQ(major * 10 + minor, 90);
  EXPECT_TRUE(arch);
  ASSERT_TRUE(parseChipName("sm_120", major, minor, arch));
  EXPECT_EQ(major, 12);
  EXPECT_EQ(minor, 0);
  EXPECT_FALSE(arch);
  // Not in the table, still a chip name (a runtime compares capabilities).
  ASSERT_TRUE(parseChipName("sm_75", major, minor, arch));
  EXPECT_EQ(major * 10 + minor, 75);
  for (const char *bad : {"sm_9", "compute_90", "sm_90ab", "sm_90A", "sm_",
                          "sm_12345", "", "90"})
    EXPECT_FALSE(parseChipName(bad, major, minor, arch)) << bad;
  // Every table entry parses to its own capability.
  for (const ChipInfo &chip : allChips()) {
    ASSERT_TRUE(parseChipName(chip.name, major, minor, arch)) << chip.name;
    EXPECT_EQ(major * 10 + minor, chip.computeCapability) << chip.name;
    EXPECT_EQ(arch, chip.archSpecific) << chip.name;
  }
}
