//===- Fp8ByteTablesTest.cpp - FP8 keys decoded by byte tables ------------===//
//
// On a CPU target with a bf16 dot and the 128-byte table lookup (vpermi2b;
// docs/design.md, "CPU targets"), select, select_paged and refine_paged
// decode FP8 keys to bf16 with two table lookups per 64 codes at the row's
// 16 lanes; at 8 lanes (CompileOptions::vectorWidth) the same row decodes
// them through f32 lanes, as before the tables. Checked here on keys that
// hold every one of the 256 codes (NaN, -0, subnormals): each code alone
// in a row of its own, all of them in two rows, and random rows weighted
// to zeros and subnormals:
//  - the 16-lane code has the lookups (vpermi2b / vpermt2b) and the 8-lane
//    code none, ahead of time for Zen 4 and for the host's row;
//  - score's logits are the same bits on both paths;
//  - select_paged and refine_paged, over the keys in pages of a shuffled
//    block table, rank every entry in the same order on both.
//
//===----------------------------------------------------------------------===//

#include "indexpool/API/Compiler.h"
#include "indexpool/API/Formats.h"
#include "indexpool/Vocabulary/PageLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace indexpool;

namespace {

// 256 rows of one code each, 2 of every code, the rest random: N is no
// multiple of a block's 16 rows nor of a page's 64 entries.
constexpr int64_t kRows = 3, kHeads = 20, kDim = 128, kKeys = 728;
constexpr int64_t kEntries = 64;

struct Inputs {
  std::vector<uint16_t> query; // bf16 bits
  std::vector<float> weights, scales;
  std::vector<uint8_t> keys; // f8E4M3FN codes
};

Inputs makeInputs(uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> scale(0.5f, 2.0f);
  std::uniform_int_distribution<int> anyCode(0, 255), small(0, 8), coin(0, 1);
  Inputs in;
  in.query.resize(size_t(kRows * kHeads * kDim));
  for (uint16_t &x : in.query)
    x = encodeBF16(normal(rng));
  in.weights.resize(size_t(kRows * kHeads));
  for (float &x : in.weights)
    x = normal(rng);
  in.scales.resize(size_t(kKeys));
  for (float &s : in.scales)
    s = scale(rng);
  in.keys.resize(size_t(kKeys * kDim));
  auto row = [&](int64_t j) { return &in.keys[size_t(j * kDim)]; };
  for (int code = 0; code < 256; ++code)
    std::fill_n(row(code), kDim, uint8_t(code));
  // Every code but the NaNs (0x7F, 0xFF), which would make the row's
  // logits NaN, in the last place: +0 and -0.
  for (int64_t d = 0; d < kDim; ++d) {
    row(256)[d] = uint8_t(d < 127 ? d : 0x00);
    row(257)[d] = uint8_t(d < 127 ? 0x80 + d : 0x80);
  }
  for (int64_t j = 258; j < kKeys; ++j)
    for (int64_t d = 0; d < kDim; ++d) {
      // Half of them zeros, subnormals or the smallest normal, either sign.
      int code = coin(rng) ? small(rng) | (coin(rng) << 7) : anyCode(rng);
      if ((code & 0x7F) == 0x7F)
        code ^= 1;
      row(j)[d] = uint8_t(code);
    }
  return in;
}

std::unique_ptr<Module> parse(const std::string &text) {
  Status status;
  std::unique_ptr<Module> module = Module::parse(text, status, "fp8.mlir");
  EXPECT_TRUE(module) << status.message();
  return module;
}

std::string shape(std::initializer_list<int64_t> sizes, const char *type) {
  std::string s = "tensor<";
  for (int64_t size : sizes)
    s += std::to_string(size) + "x";
  return s + type + ">";
}

std::string scoreModule() {
  std::string q = shape({kRows, kHeads, kDim}, "bf16"),
              w = shape({kRows, kHeads}, "f32"),
              k = shape({kKeys, kDim}, "f8E4M3FN"), s = shape({kKeys}, "f32"),
              l = shape({kRows, kKeys}, "f32");
  return "func.func @score(%q: " + q + ", %w: " + w + ", %k: " + k +
         ", %s: " + s + ") -> " + l + " {\n  %l = indexpool.score %q, %w, " +
         "%k scales(%s) : (" + q + ", " + w + ", " + k + ", " + s + ") -> " +
         l + "\n  return %l : " + l + "\n}\n";
}

vocab::PageLayout pageLayout() {
  vocab::PageLayout layout;
  layout.entries = kEntries;
  layout.dim = kDim;
  layout.codes = ElementType::F8E4M3FN;
  return layout;
}

constexpr int64_t kPages = (kKeys + kEntries - 1) / kEntries;

/// select_paged (one entry per token) and refine_paged (every token a
/// candidate) of one sequence of kKeys tokens, each keeping all of them.
std::string pagedModule() {
  int64_t pageBytes = pageLayout().pageBytes();
  std::string q = shape({1, kRows, kHeads, kDim}, "bf16"),
              w = shape({1, kRows, kHeads}, "f32"),
              p = shape({kPages, pageBytes}, "i8"),
              t = shape({1, kPages}, "i32"), l = shape({1, kRows}, "i32"),
              tokens = shape({1, kRows, kKeys}, "i32");
  std::string k = std::to_string(kKeys), e = std::to_string(kEntries);
  std::string layout = ") lengths(%l) {k = " + k + " : i64, ";
  return "func.func @select_paged(%q: " + q + ", %w: " + w + ", %p: " + p +
         ", %t: " + t + ", %l: " + l + ") -> " + tokens +
         " {\n  %r = indexpool.select_paged %q, %w pages(%p) block_table(%t" +
         layout + "pool_size = 1 : i64, page_entries = " + e + " : i64} : (" +
         q + ", " + w + ", " + p + ", " + t + ", " + l + ") -> " + tokens +
         "\n  return %r : " + tokens + "\n}\n" +
         "func.func @refine_paged(%q: " + q + ", %w: " + w + ", %c: " + tokens +
         ", %p: " + p + ", %t: " + t + ", %l: " + l + ") -> " + tokens +
         " {\n  %r = indexpool.refine_paged %q, %w, %c pages(%p) "
         "block_table(%t" +
         layout + "page_entries = " + e + " : i64} : (" + q + ", " + w + ", " +
         tokens + ", " + p + ", " + t + ", " + l + ") -> " + tokens +
         "\n  return %r : " + tokens + "\n}\n";
}

CompileOptions optionsFor(const std::string &cpu, int vectorWidth) {
  CompileOptions options;
  options.cpu = cpu;
  options.vectorWidth = vectorWidth;
  return options;
}

/// How many byte-table lookups and byte interleaves (vpermi2b, vpermt2b)
/// function `name` compiled for `cpu` at `vectorWidth` lanes has.
int byteTableInstructions(const Module &module, const std::string &name,
                          const std::string &cpu, int vectorWidth) {
  std::string code, fileName;
  Status status = compileForCpuCode(module, name, optionsFor(cpu, vectorWidth),
                                    "asm", code, fileName);
  EXPECT_TRUE(status.ok()) << status.message();
  int count = 0;
  for (const char *instruction : {"vpermi2b", "vpermt2b"})
    for (size_t at = code.find(instruction); at != std::string::npos;
         at = code.find(instruction, at + 1))
      ++count;
  return count;
}

/// The host's row, when it decodes FP8 keys by the byte tables at its 16
/// lanes (and so through f32 lanes at 8); else "".
std::string hostRowWithByteTables(const Module &score) {
  for (const CpuTargetInfo &row : cpuTargets())
    if (row.host && row.bf16Dot && row.vectorWidth == 16 &&
        byteTableInstructions(score, "score", row.name, 16) > 0)
      return row.name;
  return "";
}

template <typename T>
std::vector<T> run(const Module &module, const std::string &name,
                   const CompileOptions &options, std::vector<TensorRef> inputs,
                   TensorRef output, size_t elements) {
  Status status;
  std::unique_ptr<CpuFunction> function =
      compileForCpu(module, name, options, status);
  EXPECT_TRUE(function) << status.message();
  if (!function)
    return {};
  std::vector<T> result(elements);
  std::memset(result.data(), 0x5A, elements * sizeof(T));
  output.data = result.data();
  status = function->call(inputs.data(), inputs.size(), &output, 1);
  EXPECT_TRUE(status.ok()) << status.message();
  return result;
}

TEST(Fp8ByteTablesTest, TheLookupsAreTheSixteenLaneCodesOnly) {
  std::unique_ptr<Module> score = parse(scoreModule());
  std::unique_ptr<Module> paged = parse(pagedModule());
  ASSERT_TRUE(score && paged);
  // Zen 4: per block of 16 rows, per 64 codes, two lookups and two
  // interleaves.
  EXPECT_GT(byteTableInstructions(*score, "score", "znver4", 16), 0);
  EXPECT_EQ(byteTableInstructions(*score, "score", "znver4", 8), 0);
  for (const char *name : {"select_paged", "refine_paged"}) {
    SCOPED_TRACE(name);
    EXPECT_GT(byteTableInstructions(*paged, name, "znver4", 16), 0);
    EXPECT_EQ(byteTableInstructions(*paged, name, "znver4", 8), 0);
  }
  // A row without VBMI has none.
  EXPECT_EQ(byteTableInstructions(*score, "score", "x86-64-v4", 16), 0);
}

TEST(Fp8ByteTablesTest, ScoreLogitsAreTheF32DecodesBitForBit) {
  std::unique_ptr<Module> module = parse(scoreModule());
  ASSERT_TRUE(module);
  std::string cpu = hostRowWithByteTables(*module);
  if (cpu.empty())
    GTEST_SKIP() << "the host's CPU target has no bf16 dot with byte tables";
  Inputs in = makeInputs(37);
  std::vector<TensorRef> inputs = {
      TensorRef(in.query.data(), DType::BF16, {kRows, kHeads, kDim}),
      TensorRef(in.weights.data(), DType::F32, {kRows, kHeads}),
      TensorRef(in.keys.data(), DType::F8E4M3FN, {kKeys, kDim}),
      TensorRef(in.scales.data(), DType::F32, {kKeys})};
  TensorRef logits(nullptr, DType::F32, {kRows, kKeys});
  size_t n = size_t(kRows * kKeys);
  std::vector<float> tables =
      run<float>(*module, "score", optionsFor(cpu, 16), inputs, logits, n);
  std::vector<float> lanes =
      run<float>(*module, "score", optionsFor(cpu, 8), inputs, logits, n);
  ASSERT_EQ(tables.size(), n);
  ASSERT_EQ(lanes.size(), n);
  int64_t positive = 0, differ = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t a, b;
    std::memcpy(&a, &tables[i], 4);
    std::memcpy(&b, &lanes[i], 4);
    positive += tables[i] > 0;
    // The first few that differ, by key row (each of the first 256 rows is
    // one code).
    int64_t m = int64_t(i) / kKeys, j = int64_t(i) % kKeys;
    if (a != b && ++differ <= 8)
      ADD_FAILURE() << "row " << m << ", key " << j << " (code 0x" << std::hex
                    << int(in.keys[size_t(j * kDim)]) << std::dec
                    << " first): " << tables[i] << " by the tables, "
                    << lanes[i] << " through f32";
  }
  EXPECT_EQ(differ, 0) << "logits that differ, of " << n;
  // The logits are not all NaN or 0: the codes' values reach them.
  EXPECT_GT(positive, int64_t(n) / 2);
  // The rows of one NaN code are NaN, of one zero code 0.
  for (int64_t m = 0; m < kRows; ++m) {
    const float *row = &tables[size_t(m * kKeys)];
    EXPECT_TRUE(std::isnan(row[0x7F]) && std::isnan(row[0xFF]));
    EXPECT_EQ(row[0x00], 0.0f);
    EXPECT_EQ(row[0x80], 0.0f);
  }
}

TEST(Fp8ByteTablesTest, PagedSelectionsRankEveryEntryAsThroughF32) {
  std::unique_ptr<Module> score = parse(scoreModule());
  std::unique_ptr<Module> module = parse(pagedModule());
  ASSERT_TRUE(score && module);
  std::string cpu = hostRowWithByteTables(*score);
  if (cpu.empty())
    GTEST_SKIP() << "the host's CPU target has no bf16 dot with byte tables";
  Inputs in = makeInputs(38);
  // The keys' entries in pages of a shuffled block table.
  vocab::PageLayout layout = pageLayout();
  int64_t pageBytes = layout.pageBytes();
  std::mt19937 rng(39);
  std::vector<int32_t> table(static_cast<size_t>(kPages));
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), rng);
  std::vector<uint8_t> pages(size_t(kPages * pageBytes), 0);
  for (int64_t j = 0; j < kKeys; ++j) {
    uint8_t *page = &pages[size_t(table[size_t(j / kEntries)] * pageBytes)];
    std::memcpy(page + layout.codesOffset(j % kEntries),
                &in.keys[size_t(j * kDim)], size_t(kDim));
    std::memcpy(page + layout.scaleOffset(j % kEntries), &in.scales[size_t(j)],
                4);
  }
  std::vector<int32_t> lengths(static_cast<size_t>(kRows), int32_t(kKeys));
  // refine_paged's candidates: every token, in a shuffled order per row.
  std::vector<int32_t> candidates(size_t(kRows * kKeys));
  for (int64_t m = 0; m < kRows; ++m) {
    auto first = candidates.begin() + m * kKeys;
    std::iota(first, first + kKeys, 0);
    std::shuffle(first, first + kKeys, rng);
  }
  TensorRef q(in.query.data(), DType::BF16, {1, kRows, kHeads, kDim}),
      w(in.weights.data(), DType::F32, {1, kRows, kHeads}),
      c(candidates.data(), DType::I32, {1, kRows, kKeys}),
      p(pages.data(), DType::I8, {kPages, pageBytes}),
      t(table.data(), DType::I32, {1, kPages}),
      l(lengths.data(), DType::I32, {1, kRows});
  TensorRef tokens(nullptr, DType::I32, {1, kRows, kKeys});
  size_t n = size_t(kRows * kKeys);
  for (const char *name : {"select_paged", "refine_paged"}) {
    SCOPED_TRACE(name);
    std::vector<TensorRef> inputs =
        std::string(name) == "select_paged"
            ? std::vector<TensorRef>{q, w, p, t, l}
            : std::vector<TensorRef>{q, w, c, p, t, l};
    std::vector<int32_t> tables =
        run<int32_t>(*module, name, optionsFor(cpu, 16), inputs, tokens, n);
    std::vector<int32_t> lanes =
        run<int32_t>(*module, name, optionsFor(cpu, 8), inputs, tokens, n);
    ASSERT_EQ(tables.size(), n);
    EXPECT_EQ(tables, lanes);
    // Every token, once, the two of NaN codes last.
    for (int64_t m = 0; m < kRows; ++m) {
      std::vector<int32_t> row(tables.begin() + m * kKeys,
                               tables.begin() + (m + 1) * kKeys);
      EXPECT_EQ(std::min(row[kKeys - 2], row[kKeys - 1]), 0x7F);
      EXPECT_EQ(std::max(row[kKeys - 2], row[kKeys - 1]), 0xFF);
      std::sort(row.begin(), row.end());
      for (int64_t j = 0; j < kKeys; ++j)
        ASSERT_EQ(row[size_t(j)], j) << "row " << m;
    }
  }
}

} // namespace
