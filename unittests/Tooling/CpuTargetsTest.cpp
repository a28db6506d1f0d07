//===- CpuTargetsTest.cpp - the CPU target table against LLVM -------------===//
//
// Each row's facts checked against LLVM 22's own definition of its CPU:
// the dot instructions (and the 128-byte table lookup, vpermi2b) it claims
// are features its CPU implies, its vector width is its widest vector
// registers', LLVM makes a target machine for it; and the host's row runs
// here.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Target/Chips.h"
#include "indexpool/Tooling/CpuTargetMachine.h"

#include "llvm/Target/TargetMachine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace mlir::indexpool;
using ::indexpool::target::allCpuTargets;

namespace {

bool implies(const std::vector<std::string> &features, const char *name) {
  return std::binary_search(features.begin(), features.end(), name);
}

TEST(CpuTargets, EveryRowMatchesLlvmsDefinitionOfItsCpu) {
  std::set<std::string> names;
  for (const CpuTarget &row : allCpuTargets()) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_TRUE(names.insert(std::string(row.name)).second) << "repeated";
    EXPECT_TRUE(::indexpool::target::isValidVectorWidth(row.vectorWidth));
    std::string error;
    EXPECT_TRUE(makeCpuTargetMachine(row, /*forJit=*/false, error)) << error;
    const std::vector<std::string> features = impliedFeatures(row);
    ASSERT_FALSE(features.empty());
    if (row.arch == "x86_64") {
      EXPECT_EQ(row.bf16Dot, implies(features, "avx512bf16"));
      EXPECT_EQ(row.int8Dot, implies(features, "avx512vnni"));
      EXPECT_EQ(row.byteTable128, implies(features, "avx512vbmi"));
      const int64_t width = implies(features, "avx512f") ? 16
                            : implies(features, "avx2")  ? 8
                                                         : 4;
      EXPECT_EQ(row.vectorWidth, width);
    } else {
      ASSERT_EQ(row.arch, "aarch64");
      EXPECT_EQ(row.bf16Dot, implies(features, "bf16"));
      EXPECT_EQ(row.int8Dot, implies(features, "dotprod"));
      EXPECT_FALSE(row.byteTable128); // tbl looks up 64 bytes at most
      EXPECT_TRUE(implies(features, "neon"));
      EXPECT_EQ(row.vectorWidth, 4); // NEON's 128 bits
    }
  }
}

TEST(CpuTargets, TheHostsRowRunsHereAndNamesResolve) {
  std::string error;
  const CpuTarget *host = hostCpuTarget(error);
  ASSERT_TRUE(host) << error;
  EXPECT_TRUE(cpuTargetRunsHere(*host, error)) << error;
  EXPECT_TRUE(missingHostFeatures(*host).empty());
  EXPECT_EQ(resolveCpuTarget("", true, error), host);
  EXPECT_EQ(resolveCpuTarget("host", true, error), host);
  // No row before the host's runs here: it is the most capable one.
  for (const CpuTarget &row : allCpuTargets()) {
    if (&row == host)
      break;
    EXPECT_FALSE(row.arch == host->arch && cpuTargetRunsHere(row, error))
        << row.name;
  }
  // Any row resolves when it need not run here; an unknown name never.
  for (const CpuTarget &row : allCpuTargets())
    EXPECT_EQ(resolveCpuTarget(std::string(row.name), false, error), &row);
  EXPECT_FALSE(resolveCpuTarget("znver9", false, error));
  EXPECT_NE(error.find("unknown CPU target 'znver9'; known: "),
            std::string::npos)
      << error;
  // A row of another architecture says so.
  for (const CpuTarget &row : allCpuTargets())
    if (row.arch != host->arch) {
      EXPECT_FALSE(resolveCpuTarget(std::string(row.name), true, error));
      EXPECT_NE(error.find(std::string(row.arch) + " code; this host is"),
                std::string::npos)
          << error;
    }
}

} // namespace
