//===- Int8QueryTest.cpp - i8 keys scored with a quantized query ----------===//
//
// CompileOptions::int8Query (docs/design.md, "CPU targets"): on a CPU
// target with an int8 dot, i8 keys are scored against the query quantized
// per row and head (codes c = roundeven(q * 127 / max|q|), scale a =
// max|q| / 127). Checked here, against float64 computations written in the
// test, on random inputs:
//  - every logit is the quantized query's logit up to f32 rounding (the
//    integer dots are exact);
//  - every logit is within the documented bound of the exact logit:
//    sum_h |w_h| * s * (a_h / 2) * sum_d |k_d|, plus f32 rounding;
//  - a selection keeps only pools whose exact logit is within twice that
//    bound of the k-th best;
//  - select_paged over i8 and i4 pages in shuffled order scores the same
//    quantized-query logits (its pools are the quantized reference's top
//    k up to f32 rounding);
//  - special values: a zero head adds 0, a head with a NaN or an infinity
//    makes its row's logits NaN.
//
//===----------------------------------------------------------------------===//

#include "indexpool/API/Compiler.h"
#include "indexpool/Vocabulary/PageLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace indexpool;

namespace {

constexpr int64_t kRows = 3, kHeads = 20, kDim = 128, kKeys = 500;

/// Whether the host's CPU target has an int8 dot (else the option is
/// ignored and there is nothing to check).
bool hostHasInt8Dot() {
  for (const CpuTargetInfo &row : cpuTargets())
    if (row.host)
      return row.int8Dot;
  return false;
}

struct Inputs {
  std::vector<float> query, weights, scales;
  std::vector<int8_t> keys;
};

Inputs randomInputs(int64_t rows, int64_t keys, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> code(-128, 127);
  std::uniform_real_distribution<float> scale(0.001f, 0.02f);
  Inputs in;
  in.query.resize(size_t(rows * kHeads * kDim));
  for (float &x : in.query)
    x = normal(rng);
  in.weights.resize(size_t(rows * kHeads));
  for (float &x : in.weights)
    x = normal(rng);
  in.keys.resize(size_t(keys * kDim));
  for (int8_t &k : in.keys)
    k = int8_t(code(rng));
  in.scales.resize(size_t(keys));
  for (float &s : in.scales)
    s = scale(rng);
  return in;
}

/// The quantized query of one head, as docs/design.md (CPU targets) defines it
/// (f32 arithmetic, round to nearest even): its codes and scale.
void quantizeHead(const float *q, std::vector<int> &codes, float &scale) {
  float maxAbs = 0;
  for (int64_t d = 0; d < kDim; ++d)
    maxAbs = std::max(maxAbs, std::fabs(q[d]));
  scale = maxAbs / 127.0f;
  float inverse = 127.0f / maxAbs;
  codes.resize(size_t(kDim));
  for (int64_t d = 0; d < kDim; ++d) {
    float x = std::nearbyint(q[d] * inverse);
    codes[size_t(d)] = std::isnan(x) ? 0 : int(std::clamp(x, -127.0f, 127.0f));
  }
}

/// Per logit: the exact logit, the quantized query's logit (float64), the
/// documented bound on their difference and the magnitude f32 rounding is
/// relative to.
struct Expected {
  std::vector<double> exact, quantized, bound, magnitude;
};

Expected expectedLogits(const Inputs &in, int64_t rows, int64_t keys) {
  Expected e;
  size_t n = size_t(rows * keys);
  e.exact.assign(n, 0);
  e.quantized.assign(n, 0);
  e.bound.assign(n, 0);
  e.magnitude.assign(n, 0);
  std::vector<int> codes;
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t h = 0; h < kHeads; ++h) {
      const float *q = &in.query[size_t((m * kHeads + h) * kDim)];
      float scale;
      quantizeHead(q, codes, scale);
      double w = in.weights[size_t(m * kHeads + h)];
      for (int64_t j = 0; j < keys; ++j) {
        const int8_t *k = &in.keys[size_t(j * kDim)];
        double s = in.scales[size_t(j)], dot = 0, sumAbs = 0, magnitude = 0;
        int64_t codeDot = 0;
        for (int64_t d = 0; d < kDim; ++d) {
          dot += double(q[d]) * k[d];
          codeDot += int64_t(codes[size_t(d)]) * k[d];
          sumAbs += std::abs(int(k[d]));
          magnitude += std::fabs(double(q[d]) * k[d]);
        }
        size_t at = size_t(m * keys + j);
        e.exact[at] += w * std::max(s * dot, 0.0);
        e.quantized[at] +=
            w * std::max(s * double(scale) * double(codeDot), 0.0);
        e.bound[at] += std::fabs(w) * s * (double(scale) / 2) * sumAbs;
        e.magnitude[at] += std::fabs(w) * s * magnitude;
      }
    }
  return e;
}

std::string scoreModule(int64_t rows, int64_t keys) {
  std::string q = "tensor<" + std::to_string(rows) + "x" +
                  std::to_string(kHeads) + "x" + std::to_string(kDim) + "xf32>";
  std::string w =
      "tensor<" + std::to_string(rows) + "x" + std::to_string(kHeads) + "xf32>";
  std::string k =
      "tensor<" + std::to_string(keys) + "x" + std::to_string(kDim) + "xi8>";
  std::string s = "tensor<" + std::to_string(keys) + "xf32>";
  std::string l =
      "tensor<" + std::to_string(rows) + "x" + std::to_string(keys) + "xf32>";
  return "func.func @score(%q: " + q + ", %w: " + w + ", %k: " + k +
         ", %s: " + s + ") -> " + l + " {\n  %l = indexpool.score %q, %w, " +
         "%k scales(%s) : (" + q + ", " + w + ", " + k + ", " + s + ") -> " +
         l + "\n  return %l : " + l + "\n}\n";
}

/// The logits of `in` from score compiled with or without the int8 query.
std::vector<float> runScore(const Inputs &in, int64_t rows, int64_t keys,
                            bool int8Query) {
  Status status;
  std::unique_ptr<Module> module =
      Module::parse(scoreModule(rows, keys), status, "score.mlir");
  EXPECT_TRUE(module) << status.message();
  if (!module)
    return {};
  CompileOptions options;
  options.int8Query = int8Query;
  std::unique_ptr<CpuFunction> score =
      compileForCpu(*module, "score", options, status);
  EXPECT_TRUE(score) << status.message();
  if (!score)
    return {};
  Inputs copy = in;
  TensorRef inputs[] = {
      TensorRef(copy.query.data(), DType::F32, {rows, kHeads, kDim}),
      TensorRef(copy.weights.data(), DType::F32, {rows, kHeads}),
      TensorRef(copy.keys.data(), DType::I8, {keys, kDim}),
      TensorRef(copy.scales.data(), DType::F32, {keys})};
  std::vector<float> logits(size_t(rows * keys), -7.0f);
  TensorRef outputs[] = {TensorRef(logits.data(), DType::F32, {rows, keys})};
  status = score->call(inputs, 4, outputs, 1);
  EXPECT_TRUE(status.ok()) << status.message();
  return logits;
}

TEST(Int8QueryTest, LogitsAreTheQuantizedQuerysWithinTheDocumentedBound) {
  if (!hostHasInt8Dot())
    GTEST_SKIP() << "the host's CPU target has no int8 dot";
  Inputs in = randomInputs(kRows, kKeys, 11);
  // A head of zeros (its scale is 0) adds nothing.
  std::fill_n(&in.query[size_t((1 * kHeads + 3) * kDim)], kDim, 0.0f);
  std::vector<float> actual = runScore(in, kRows, kKeys, true);
  std::vector<float> exactRun = runScore(in, kRows, kKeys, false);
  ASSERT_EQ(actual.size(), size_t(kRows * kKeys));
  Expected e = expectedLogits(in, kRows, kKeys);
  double largestDifference = 0, largestMagnitude = 0;
  for (size_t i = 0; i < actual.size(); ++i)
    largestMagnitude = std::max(largestMagnitude, e.magnitude[i]);
  for (size_t i = 0; i < actual.size(); ++i) {
    double a = actual[i];
    // f32 rounding of the dots, scales and head sums.
    double rounding = 1e-5 * largestMagnitude;
    EXPECT_LE(std::fabs(a - e.quantized[i]), rounding)
        << "logit " << i << ": " << a << ", quantized query's "
        << e.quantized[i];
    EXPECT_LE(std::fabs(a - e.exact[i]), e.bound[i] + rounding)
        << "logit " << i << ": " << a << ", exact " << e.exact[i] << ", bound "
        << e.bound[i];
    largestDifference =
        std::max(largestDifference, std::fabs(double(exactRun[i]) - a));
  }
  // The option took effect: the quantization moves logits far beyond the
  // exact path's rounding.
  EXPECT_GT(largestDifference, 1e-4 * largestMagnitude);
}

TEST(Int8QueryTest, NonFiniteQueryValuesMakeTheirRowNaN) {
  if (!hostHasInt8Dot())
    GTEST_SKIP() << "the host's CPU target has no int8 dot";
  Inputs in = randomInputs(kRows, 64, 12);
  in.query[size_t((0 * kHeads + 5) * kDim + 17)] =
      std::numeric_limits<float>::quiet_NaN();
  in.query[size_t((2 * kHeads + 19) * kDim + 100)] =
      std::numeric_limits<float>::infinity();
  std::vector<float> actual = runScore(in, kRows, 64, true);
  ASSERT_EQ(actual.size(), size_t(kRows * 64));
  for (int64_t j = 0; j < 64; ++j) {
    EXPECT_TRUE(std::isnan(actual[size_t(0 * 64 + j)])) << j;
    EXPECT_TRUE(std::isfinite(actual[size_t(1 * 64 + j)])) << j;
    EXPECT_TRUE(std::isnan(actual[size_t(2 * 64 + j)])) << j;
  }
}

TEST(Int8QueryTest, SelectionsKeepPoolsWithinTwiceTheBoundOfTheKthBest) {
  if (!hostHasInt8Dot())
    GTEST_SKIP() << "the host's CPU target has no int8 dot";
  constexpr int64_t rows = 2, pools = 2048, k = 32, p = 4;
  std::string q = "tensor<2x20x128xf32>", w = "tensor<2x20xf32>",
              keys = "tensor<2048x128xi8>", s = "tensor<2048xf32>",
              t = "tensor<2x128xi32>";
  std::string text =
      "func.func @select(%q: " + q + ", %w: " + w + ", %k: " + keys +
      ", %s: " + s + ") -> " + t +
      " {\n  %t = indexpool.select %q, %w, %k scales(%s) {k = 32 : i64, "
      "pool_size = 4 : i64} : (" +
      q + ", " + w + ", " + keys + ", " + s + ") -> " + t +
      "\n  return %t : " + t + "\n}\n";
  Status status;
  std::unique_ptr<Module> module = Module::parse(text, status, "select.mlir");
  ASSERT_TRUE(module) << status.message();
  CompileOptions options;
  options.int8Query = true;
  std::unique_ptr<CpuFunction> select =
      compileForCpu(*module, "select", options, status);
  ASSERT_TRUE(select) << status.message();
  Inputs in = randomInputs(rows, pools, 13);
  TensorRef inputs[] = {
      TensorRef(in.query.data(), DType::F32, {rows, kHeads, kDim}),
      TensorRef(in.weights.data(), DType::F32, {rows, kHeads}),
      TensorRef(in.keys.data(), DType::I8, {pools, kDim}),
      TensorRef(in.scales.data(), DType::F32, {pools})};
  std::vector<int32_t> tokens(size_t(rows * k * p), -7);
  TensorRef outputs[] = {TensorRef(tokens.data(), DType::I32, {rows, k * p})};
  status = select->call(inputs, 4, outputs, 1);
  ASSERT_TRUE(status.ok()) << status.message();

  Expected e = expectedLogits(in, rows, pools);
  for (int64_t m = 0; m < rows; ++m) {
    const double *exact = &e.exact[size_t(m * pools)];
    std::vector<double> sorted(exact, exact + pools);
    std::sort(sorted.begin(), sorted.end(), std::greater<double>());
    double kth = sorted[size_t(k - 1)];
    double bound = *std::max_element(&e.bound[size_t(m * pools)],
                                     &e.bound[size_t(m * pools)] + pools);
    std::vector<char> taken(size_t(pools), 0);
    for (int64_t j = 0; j < k; ++j) {
      int32_t first = tokens[size_t(m * k * p + j * p)];
      ASSERT_TRUE(first >= 0 && first % p == 0 && first / p < pools) << first;
      int64_t pool = first / p;
      for (int64_t i = 1; i < p; ++i)
        EXPECT_EQ(tokens[size_t(m * k * p + j * p + i)], first + i);
      EXPECT_FALSE(taken[size_t(pool)]) << "pool " << pool << " twice";
      taken[size_t(pool)] = 1;
      EXPECT_GE(exact[pool], kth - 2 * bound)
          << "row " << m << " pool " << pool << ": exact logit " << exact[pool]
          << ", k-th best " << kth << ", bound " << bound;
    }
  }
}

/// select_paged's pools for one sequence of `pools` pooled keys (`in`'s,
/// i8 or, with codes in [-8, 7], i4) in pages of `layout` laid out in a
/// shuffled block table.
std::vector<int32_t> runSelectPaged(const Inputs &in, int64_t rows,
                                    int64_t pools, int64_t k,
                                    const vocab::PageLayout &layout,
                                    std::mt19937 &rng) {
  constexpr int64_t p = 4;
  int64_t numPages = (pools + layout.entries - 1) / layout.entries;
  int64_t pageBytes = layout.pageBytes();
  std::vector<int32_t> table(static_cast<size_t>(numPages));
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), rng);
  std::vector<int8_t> pages(size_t(numPages * pageBytes), 0);
  bool nibbles = layout.codeInfo().bits == 4;
  for (int64_t j = 0; j < pools; ++j) {
    int8_t *page =
        &pages[size_t(table[size_t(j / layout.entries)] * pageBytes)];
    int64_t entry = j % layout.entries;
    int8_t *codes = page + layout.codesOffset(entry);
    for (int64_t d = 0; d < kDim; ++d) {
      int8_t code = in.keys[size_t(j * kDim + d)];
      if (!nibbles) {
        codes[d] = code;
        continue;
      }
      // Code 2i in byte i's low nibble, 2i + 1 in its high one.
      auto bits = uint8_t(uint8_t(code) & 0xF) << (4 * (d % 2));
      codes[d / 2] = int8_t(uint8_t(codes[d / 2]) | bits);
    }
    std::memcpy(page + layout.scaleOffset(entry), &in.scales[size_t(j)], 4);
  }
  std::string t = "tensor<1x" + std::to_string(rows) + "x" +
                  std::to_string(k * p + p - 1) + "xi32>";
  std::string q = "tensor<1x" + std::to_string(rows) + "x" +
                  std::to_string(kHeads) + "x" + std::to_string(kDim) + "xf32>",
              w = "tensor<1x" + std::to_string(rows) + "x" +
                  std::to_string(kHeads) + "xf32>",
              pg = "tensor<" + std::to_string(numPages) + "x" +
                   std::to_string(pageBytes) + "xi8>",
              tb = "tensor<1x" + std::to_string(numPages) + "xi32>",
              l = "tensor<1x" + std::to_string(rows) + "xi32>";
  std::string text =
      "func.func @f(%q: " + q + ", %w: " + w + ", %p: " + pg + ", %t: " + tb +
      ", %l: " + l + ") -> " + t +
      " {\n  %r = indexpool.select_paged %q, %w pages(%p) block_table(%t) "
      "lengths(%l) {k = " +
      std::to_string(k) + " : i64, pool_size = 4 : i64, page_entries = " +
      std::to_string(layout.entries) +
      " : i64, codes = " + (nibbles ? "i4" : "i8") + "} : (" + q + ", " + w +
      ", " + pg + ", " + tb + ", " + l + ") -> " + t + "\n  return %r : " + t +
      "\n}\n";
  Status status;
  std::unique_ptr<Module> module = Module::parse(text, status, "paged.mlir");
  EXPECT_TRUE(module) << status.message();
  if (!module)
    return {};
  CompileOptions options;
  options.int8Query = true;
  std::unique_ptr<CpuFunction> select =
      compileForCpu(*module, "f", options, status);
  EXPECT_TRUE(select) << status.message();
  if (!select)
    return {};
  Inputs copy = in;
  std::vector<int32_t> lengths(size_t(rows), int32_t(pools * p));
  TensorRef inputs[] = {
      TensorRef(copy.query.data(), DType::F32, {1, rows, kHeads, kDim}),
      TensorRef(copy.weights.data(), DType::F32, {1, rows, kHeads}),
      TensorRef(pages.data(), DType::I8, {numPages, pageBytes}),
      TensorRef(table.data(), DType::I32, {1, numPages}),
      TensorRef(lengths.data(), DType::I32, {1, rows})};
  std::vector<int32_t> tokens(size_t(rows * (k * p + p - 1)), -7);
  TensorRef outputs[] = {
      TensorRef(tokens.data(), DType::I32, {1, rows, k * p + p - 1})};
  status = select->call(inputs, 5, outputs, 1);
  EXPECT_TRUE(status.ok()) << status.message();
  return tokens;
}

TEST(Int8QueryTest, PagedSelectsScoreTheQuantizedQueryOnI8AndI4Pages) {
  if (!hostHasInt8Dot())
    GTEST_SKIP() << "the host's CPU target has no int8 dot";
  // 1000 pools: a partial last page and a partial last block of rows.
  constexpr int64_t rows = 2, pools = 1000, k = 40, p = 4;
  std::mt19937 rng(37);
  for (ElementType codes :
       {ElementType::I8, ElementType::I4}) {
    SCOPED_TRACE(codes == ElementType::I4 ? "i4" : "i8");
    Inputs in = randomInputs(rows, pools, 17);
    if (codes == ElementType::I4)
      for (int8_t &code : in.keys)
        code = int8_t(code >> 4); // [-8, 7]
    vocab::PageLayout layout;
    layout.entries = 64;
    layout.dim = kDim;
    layout.codes = codes;
    std::vector<int32_t> tokens =
        runSelectPaged(in, rows, pools, k, layout, rng);
    ASSERT_EQ(tokens.size(), size_t(rows * (k * p + p - 1)));
    Expected e = expectedLogits(in, rows, pools);
    for (int64_t m = 0; m < rows; ++m) {
      const double *quantized = &e.quantized[size_t(m * pools)];
      std::vector<double> sorted(quantized, quantized + pools);
      std::sort(sorted.begin(), sorted.end(), std::greater<double>());
      double kth = sorted[size_t(k - 1)];
      // f32 rounding of a logit: a few ulps of its terms' magnitudes.
      double slack =
          1e-5 * *std::max_element(&e.magnitude[size_t(m * pools)],
                                   &e.magnitude[size_t(m * pools)] + pools);
      const int32_t *row = &tokens[size_t(m * (k * p + p - 1))];
      std::vector<char> taken(size_t(pools), 0);
      for (int64_t j = 0; j < k; ++j) {
        int32_t first = row[j * p];
        ASSERT_TRUE(first >= 0 && first % p == 0 && first / p < pools) << first;
        int64_t pool = first / p;
        EXPECT_FALSE(taken[size_t(pool)]) << "pool " << pool << " twice";
        taken[size_t(pool)] = 1;
        EXPECT_GE(quantized[pool], kth - slack)
            << "row " << m << " pool " << pool << ": quantized logit "
            << quantized[pool] << ", k-th best " << kth;
      }
      for (int64_t i = 0; i < p - 1; ++i)
        EXPECT_EQ(row[k * p + i], -1) << "no tail at a multiple of P";
    }
  }
}

} // namespace
