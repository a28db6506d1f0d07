//===- SelectionTest.cpp - score, topk, expand and the fused ops ----------===//

#include "indexpool/Reference/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace indexpool::ref;

namespace {

using Values = std::vector<double>;

constexpr ElementType F32 = ElementType::F32;
constexpr ElementType I32 = ElementType::I32;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

HostTensor f32(std::vector<int64_t> shape, Values data) {
  return {F32, std::move(shape), std::move(data)};
}
HostTensor i32(std::vector<int64_t> shape, Values data) {
  return {I32, std::move(shape), std::move(data)};
}

//===----------------------------------------------------------------------===//
// score
//===----------------------------------------------------------------------===//

// M = 1, H = 2, D = 2: head 0 reads key[0], head 1 reads key[1].
HostTensor oneQuery() { return f32({1, 2, 2}, {1, 0, 0, 1}); }
HostTensor headWeights() { return f32({1, 2}, {1, 2}); }
HostTensor twoKeys() { return f32({2, 2}, {3, -4, -1, 5}); }

TEST(ScoreTest, WeightedReluOfDotProducts) {
  // n = 0: heads see 3 and -4 -> 1*3 + 2*relu(-4) = 3.
  // n = 1: heads see -1 and 5 -> 1*relu(-1) + 2*5 = 10.
  HostTensor logits = score(oneQuery(), headWeights(), twoKeys(), nullptr);
  EXPECT_EQ(logits.shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(logits.type, F32);
  EXPECT_EQ(logits.data, (Values{3, 10}));
}

TEST(ScoreTest, ScalesMultiplyBeforeTheRelu) {
  // s = {0.5, 2}: n = 0: 0.5*3 = 1.5; n = 1: 2 * (2*5) = 20.
  HostTensor scales = f32({2}, {0.5, 2});
  EXPECT_EQ(score(oneQuery(), headWeights(), twoKeys(), &scales).data,
            (Values{1.5, 20}));
  // A negative scale flips which heads pass the relu: n = 0: -3 -> 0 and
  // 4 -> 2*4 = 8; n = 1: 1 -> 1 and -5 -> 0.
  HostTensor negative = f32({2}, {-1, -1});
  EXPECT_EQ(score(oneQuery(), headWeights(), twoKeys(), &negative).data,
            (Values{8, 1}));
}

TEST(ScoreTest, QuantizedKeysHoldDecodedValues) {
  // f8 keys hold their values; with scale 2^-8 a key of 448 means 1.75.
  HostTensor keys{ElementType::F8E4M3FN, {1, 2}, {448, 0}};
  HostTensor scales = f32({1}, {std::ldexp(1.0, -8)});
  EXPECT_EQ(score(oneQuery(), headWeights(), keys, &scales).data,
            (Values{1.75}));
}

TEST(ScoreTest, ShapeChecks) {
  EXPECT_EQ(
      checkScore(oneQuery(), headWeights(), f32({2, 3}, Values(6, 0)), nullptr),
      "score: keys must be [N, D] with D = 2 (q's), got [2, 3]");
  EXPECT_EQ(checkScore(oneQuery(), f32({2}, {1, 2}), twoKeys(), nullptr),
            "score: w must be [M, H] = [1, 2], got [2]");
  HostTensor scales = f32({3}, {1, 1, 1});
  EXPECT_EQ(checkScore(oneQuery(), headWeights(), twoKeys(), &scales),
            "score: scales must be [N] = [2], got [3]");
}

//===----------------------------------------------------------------------===//
// topk
//===----------------------------------------------------------------------===//

TEST(TopKTest, DescendingWithTiesBySmallerIndex) {
  // {1, 3, 2, 3}: the two 3s in index order, then 2.
  TopKResult r = topk(f32({1, 4}, {1, 3, 2, 3}), nullptr, 3);
  EXPECT_EQ(r.values.data, (Values{3, 3, 2}));
  EXPECT_EQ(r.indices.data, (Values{1, 3, 2}));
  EXPECT_EQ(r.values.type, F32);
  EXPECT_EQ(r.indices.type, I32);
  // -0 and +0 are equal values.
  EXPECT_EQ(topk(f32({1, 2}, {-0.0, 0.0}), nullptr, 2).indices.data,
            (Values{0, 1}));
}

TEST(TopKTest, NaNRanksBelowEveryNumber) {
  // {NaN, 1, -inf, NaN}: 1, then -inf (a number), then the NaNs by index.
  TopKResult r = topk(f32({1, 4}, {kNaN, 1, -kInf, kNaN}), nullptr, 4);
  EXPECT_EQ(r.indices.data, (Values{1, 2, 0, 3}));
  EXPECT_EQ(r.values.data[0], 1);
  EXPECT_EQ(r.values.data[1], -kInf);
  EXPECT_TRUE(std::isnan(r.values.data[2]));
  EXPECT_TRUE(std::isnan(r.values.data[3]));
  // With k = 1 the NaNs are not chosen at all.
  EXPECT_EQ(topk(f32({1, 3}, {kNaN, -5, kNaN}), nullptr, 1).indices.data,
            (Values{1}));
}

TEST(TopKTest, KLargerThanNPads) {
  // Two candidates for four slots: the rest are -inf / -1. A real -inf is
  // still a candidate and keeps its index.
  TopKResult r = topk(f32({2, 2}, {5, 4, -kInf, -kInf}), nullptr, 4);
  EXPECT_EQ(r.values.data,
            (Values{5, 4, -kInf, -kInf, -kInf, -kInf, -kInf, -kInf}));
  EXPECT_EQ(r.indices.data, (Values{0, 1, -1, -1, 0, 1, -1, -1}));
}

TEST(TopKTest, ValidLengthsAreClampedToZeroAndN) {
  HostTensor logits =
      f32({4, 4}, {1, 2, 3, 4, 4, 3, 2, 1, 1, 2, 3, 4, 1, 2, 3, 4});
  HostTensor valid = i32({4}, {2, 0, 10, -3});
  TopKResult r = topk(logits, &valid, 3);
  // Row 0: columns {0, 1} -> 2, 1, pad. Row 1: none. Row 2: 10 -> 4 columns.
  // Row 3: -3 -> 0 columns.
  EXPECT_EQ(r.indices.data,
            (Values{1, 0, -1, -1, -1, -1, 3, 2, 1, -1, -1, -1}));
  EXPECT_EQ(r.values.data, (Values{2, 1, -kInf, -kInf, -kInf, -kInf, 4, 3, 2,
                                   -kInf, -kInf, -kInf}));
}

TEST(TopKTest, EmptySizes) {
  // No columns at all: every slot is padding.
  TopKResult r = topk(f32({2, 0}, {}), nullptr, 2);
  EXPECT_EQ(r.indices.data, (Values{-1, -1, -1, -1}));
  EXPECT_EQ(r.values.data, Values(4, -kInf));
  // Empty heads / head dim: every logit is 0.
  EXPECT_EQ(
      score(f32({1, 2, 0}, {}), f32({1, 2}, {1, 1}), f32({3, 0}, {}), nullptr)
          .data,
      (Values{0, 0, 0}));
}

TEST(TopKTest, ZeroKAndShapeChecks) {
  EXPECT_EQ(topk(f32({2, 3}, Values(6, 1)), nullptr, 0).values.shape,
            (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(checkTopK(f32({2, 3}, Values(6, 1)), nullptr, -1),
            "topk: k must be >= 0, got -1");
  HostTensor valid = i32({3}, {1, 1, 1});
  EXPECT_EQ(checkTopK(f32({2, 3}, Values(6, 1)), &valid, 1),
            "topk: valid must be [M] = [2], got [3]");
}

//===----------------------------------------------------------------------===//
// expand
//===----------------------------------------------------------------------===//

TEST(ExpandTest, PoolsToTokens) {
  // P = 4: pool 2 -> tokens 8..11, -1 -> four -1, pool 0 -> 0..3.
  HostTensor tokens = expand(i32({1, 3}, {2, -1, 0}), 4);
  EXPECT_EQ(tokens.shape, (std::vector<int64_t>{1, 12}));
  EXPECT_EQ(tokens.type, I32);
  EXPECT_EQ(tokens.data, (Values{8, 9, 10, 11, -1, -1, -1, -1, 0, 1, 2, 3}));
  EXPECT_EQ(checkExpand(i32({3}, {1, 2, 3}), 4),
            "expand: idx must be [M, K], got [3]");
}

TEST(ExpandTest, IndicesWhoseTokensLeaveI32ExpandToMinusOne) {
  // P = 4: 536870911 * 4 + 3 = 2^31 - 1 is the last token that fits, so
  // 536870911 is the largest index that expands; one more does not.
  HostTensor tokens =
      expand(i32({1, 3}, {536870911, 536870912, 2147483647}), 4);
  EXPECT_EQ(tokens.data, (Values{2147483644, 2147483645, 2147483646,
                                 2147483647, -1, -1, -1, -1, -1, -1, -1, -1}));
  // P = 64: (2^31 - 1 - 63) / 64 = 33554431, whose last token is 2^31 - 1.
  HostTensor wide = expand(i32({1, 2}, {33554431, 33554432}), 64);
  EXPECT_EQ(wide.data[63], 2147483647.0);
  for (int s = 64; s < 128; ++s)
    EXPECT_EQ(wide.data[s], -1.0) << s;
  // P = 2: the limit is (2^31 - 2) / 2 = 1073741823.
  EXPECT_EQ(expand(i32({1, 2}, {1073741823, 1073741824}), 2).data,
            (Values{2147483646, 2147483647, -1, -1}));
}

//===----------------------------------------------------------------------===//
// compress / select: the same results as their chains, roundings included
//===----------------------------------------------------------------------===//

struct CompressCase {
  ElementType keyType;
  bool perChannel;
  bool withBias;
  CompressOptions options;
};

/// "bf16_perChannel_bias_P4_rotate_f8E4M3FN_pow2": the test name suffix.
std::string caseName(const CompressCase &c) {
  return std::string(elementTypeName(c.keyType)) +
         (c.perChannel ? "_perChannel" : "_perToken") +
         (c.withBias ? "_bias" : "") + "_P" +
         std::to_string(c.options.poolSize) +
         (c.options.rotate ? "_rotate_" : "_") +
         elementTypeName(c.options.quantizedType) +
         (c.options.pow2Scale ? "_pow2" : "");
}

// Without this, gtest prints the raw bytes, padding included.
void PrintTo(const CompressCase &c, std::ostream *os) { *os << caseName(c); }

class CompressChainTest : public ::testing::TestWithParam<CompressCase> {};

TEST_P(CompressChainTest, EqualsTheChain) {
  const CompressCase &c = GetParam();
  std::mt19937_64 rng(42);
  int64_t tokens = 18, dim = 16, p = c.options.poolSize; // 18: a tail
  HostTensor keys = randomNormal(c.keyType, {tokens, dim}, rng);
  HostTensor scores =
      randomNormal(F32,
                   c.perChannel ? std::vector<int64_t>{tokens, dim}
                                : std::vector<int64_t>{tokens},
                   rng);
  HostTensor bias = randomNormal(F32,
                                 c.perChannel ? std::vector<int64_t>{p, dim}
                                              : std::vector<int64_t>{p},
                                 rng);
  const HostTensor *biasOrNull = c.withBias ? &bias : nullptr;
  ASSERT_EQ(checkCompress(keys, scores, biasOrNull, c.options), "");

  CompressResult fused = compress(keys, scores, biasOrNull, c.options);

  PoolResult pooled =
      pool(keys, scores, biasOrNull, p, c.options.temperature, keys.type);
  HostTensor x =
      c.options.rotate ? hadamard(pooled.pooled, keys.type) : pooled.pooled;
  QuantizeResult quantized = quantize(x, c.options.quantizedType,
                                      c.options.pow2Scale, c.options.minAbsmax);
  EXPECT_EQ(fused.q.type, c.options.quantizedType);
  EXPECT_EQ(fused.q.shape, (std::vector<int64_t>{tokens / p, dim}));
  EXPECT_EQ(fused.q.data, quantized.q.data);
  EXPECT_EQ(fused.scale.data, quantized.scale.data);
  EXPECT_EQ(fused.weights.shape, pooled.weights.shape);
  EXPECT_EQ(fused.weights.data, pooled.weights.data);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, CompressChainTest,
    ::testing::Values(
        // GLM-5.3-Flash kpool: per-channel scores, bias, rotate, f8, pow2.
        CompressCase{ElementType::BF16,
                     true,
                     true,
                     {4, 1.0, true, ElementType::F8E4M3FN, true, 1e-4}},
        CompressCase{ElementType::F16,
                     false,
                     false,
                     {2, 0.5, false, ElementType::I8, false, 1e-4}},
        CompressCase{ElementType::F32,
                     false,
                     true,
                     {8, 2.0, true, ElementType::I8, true, 0.5}},
        CompressCase{ElementType::BF16,
                     true,
                     false,
                     {4, 1.0, false, ElementType::F8E4M3FN, false, 1e-4}}),
    [](const ::testing::TestParamInfo<CompressCase> &info) {
      return caseName(info.param);
    });

TEST(CompressTest, ShapeChecks) {
  HostTensor keys = f32({8, 6}, Values(48, 1));
  HostTensor scores = f32({8}, Values(8, 0));
  CompressOptions options;
  options.rotate = true;
  EXPECT_EQ(checkCompress(keys, scores, nullptr, options),
            "compress: with rotate, the size D of keys must be a power of "
            "two, got 6");
  options.rotate = false;
  EXPECT_EQ(checkCompress(keys, scores, nullptr, options), "");
  options.quantizedType = ElementType::F16;
  EXPECT_NE(checkCompress(keys, scores, nullptr, options), "");
}

TEST(SelectTest, EqualsTheChain) {
  std::mt19937_64 rng(5);
  int64_t queries = 3, heads = 4, dim = 16, entries = 40, k = 6, p = 4;
  HostTensor q = randomNormal(ElementType::BF16, {queries, heads, dim}, rng);
  HostTensor w = randomNormal(F32, {queries, heads}, rng);
  HostTensor keys =
      randomNormal(ElementType::F8E4M3FN, {entries, dim}, rng, 64.0);
  HostTensor scales = randomNormal(F32, {entries}, rng, 0.01);
  // Row 1 has fewer valid entries than k: its tail expands to -1.
  HostTensor valid = i32({queries}, {40, 4, 25});
  ASSERT_EQ(checkSelect(q, w, keys, &scales, &valid, k, p), "");

  HostTensor tokens = select(q, w, keys, &scales, &valid, k, p);
  HostTensor chain =
      expand(topk(score(q, w, keys, &scales), &valid, k).indices, p);
  EXPECT_EQ(tokens.shape, (std::vector<int64_t>{queries, k * p}));
  EXPECT_EQ(tokens.data, chain.data);
  for (int64_t j = 4 * p; j < k * p; ++j)
    EXPECT_EQ(tokens.data[k * p + j], -1);
  // Without scales and valid lengths as well.
  EXPECT_EQ(
      select(q, w, keys, nullptr, nullptr, k, p).data,
      expand(topk(score(q, w, keys, nullptr), nullptr, k).indices, p).data);
}

TEST(SelectTest, ShapeChecks) {
  HostTensor valid = i32({2}, {1, 1});
  EXPECT_EQ(
      checkSelect(oneQuery(), headWeights(), twoKeys(), nullptr, &valid, 1, 4),
      "select: valid must be [M] = [1], got [2]");
  EXPECT_EQ(
      checkSelect(oneQuery(), headWeights(), twoKeys(), nullptr, nullptr, 1, 0),
      "select: pool_size must be >= 1, got 0");
}

//===----------------------------------------------------------------------===//
// refine
//===----------------------------------------------------------------------===//

TEST(RefineTest, ScoresCandidatesTakesTheBest) {
  // Key logits (oneQuery, twoKeys): row 0 -> 3, row 1 -> 10. Padding (-1,
  // 2 = T, the i32 extremes) is NaN: last, among NaNs by column, and -1.
  HostTensor candidates = i32({1, 6}, {0, -1, 1, 2, 0, -2147483648.0});
  HostTensor logits =
      refineLogits(oneQuery(), headWeights(), candidates, twoKeys(), nullptr);
  EXPECT_EQ(logits.data[0], 3);
  EXPECT_EQ(logits.data[2], 10);
  EXPECT_EQ(logits.data[4], 3);
  EXPECT_TRUE(std::isnan(logits.data[1]) && std::isnan(logits.data[3]) &&
              std::isnan(logits.data[5]));
  HostTensor tokens =
      refine(oneQuery(), headWeights(), candidates, twoKeys(), nullptr, 6);
  EXPECT_EQ(tokens.shape, (std::vector<int64_t>{1, 6}));
  EXPECT_EQ(tokens.type, I32);
  // The duplicate 0 is kept twice, in column order.
  EXPECT_EQ(tokens.data, (Values{1, 0, 0, -1, -1, -1}));
  EXPECT_EQ(
      refine(oneQuery(), headWeights(), candidates, twoKeys(), nullptr, 2).data,
      (Values{1, 0}));
}

TEST(RefineTest, AllTokensIsTopKOfScore) {
  std::mt19937_64 rng(7);
  int64_t queries = 3, heads = 4, dim = 16, tokens = 40, k = 9;
  HostTensor q = randomNormal(ElementType::BF16, {queries, heads, dim}, rng);
  HostTensor w = randomNormal(F32, {queries, heads}, rng);
  HostTensor keys =
      randomNormal(ElementType::F8E4M3FN, {tokens, dim}, rng, 64.0);
  HostTensor scales = randomNormal(F32, {tokens}, rng, 0.01);
  HostTensor candidates = i32({queries, tokens}, {});
  for (int64_t i = 0; i < queries * tokens; ++i)
    candidates.data.push_back(double(i % tokens));
  ASSERT_EQ(checkRefine(q, w, candidates, keys, &scales, k), "");
  EXPECT_EQ(refineLogits(q, w, candidates, keys, &scales).data,
            score(q, w, keys, &scales).data);
  EXPECT_EQ(refine(q, w, candidates, keys, &scales, k).data,
            topk(score(q, w, keys, &scales), nullptr, k).indices.data);
}

TEST(RefineTest, ShapeChecks) {
  HostTensor candidates = i32({2, 4}, {0, 1, 0, 1, 0, 1, 0, 1});
  EXPECT_EQ(
      checkRefine(oneQuery(), headWeights(), candidates, twoKeys(), nullptr, 1),
      "refine: candidates must be [M, C] with M = 1 (q's), got [2, 4]");
  HostTensor one = i32({1, 4}, {0, 1, 0, 1});
  HostTensor scales = f32({3}, {1, 1, 1});
  EXPECT_EQ(checkRefine(oneQuery(), headWeights(), one, twoKeys(), &scales, 1),
            "refine: scales must be [T] = [2], got [3]");
  EXPECT_EQ(checkRefine(oneQuery(), headWeights(), one, twoKeys(), nullptr, -1),
            "refine: k must be >= 0, got -1");
}

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

TEST(RandomTest, NormalIsRepresentableAndReproducible) {
  for (ElementType type :
       {ElementType::F32, ElementType::F16, ElementType::BF16,
        ElementType::F8E4M3FN, ElementType::I8}) {
    std::mt19937_64 a(9), b(9);
    HostTensor x = randomNormal(type, {64, 32}, a, 3.0);
    EXPECT_EQ(x.type, type);
    EXPECT_EQ(x.data, randomNormal(type, {64, 32}, b, 3.0).data);
    for (double value : x.data)
      EXPECT_EQ(roundTo(value, type), value);
  }
}

TEST(RandomTest, NormalMoments) {
  // 10^4 samples: the standard error of the mean is 0.01, of the variance
  // about 0.014.
  std::mt19937_64 rng(10);
  HostTensor x = randomNormal(F32, {10000}, rng);
  double sum = 0, squares = 0;
  for (double value : x.data) {
    sum += value;
    squares += value * value;
  }
  EXPECT_NEAR(sum / 1e4, 0.0, 0.05);
  EXPECT_NEAR(squares / 1e4, 1.0, 0.07);
}

TEST(RandomTest, NeverAllZero) {
  // Samples of N(0, 0.01^2) all round to 0 in i8.
  std::mt19937_64 rng(12);
  HostTensor x = randomNormal(ElementType::I8, {16}, rng, 0.01);
  EXPECT_EQ(x.data[0], 1);
  EXPECT_TRUE(randomNormal(F32, {0, 4}, rng).data.empty());
}

TEST(RandomTest, Int32InRangeAndCoveringIt) {
  std::mt19937_64 rng(13);
  HostTensor x = randomInt32({1000}, -2, 3, rng);
  EXPECT_EQ(x.type, I32);
  std::vector<int> seen(6, 0);
  for (double value : x.data) {
    ASSERT_GE(value, -2);
    ASSERT_LE(value, 3);
    ASSERT_EQ(value, std::floor(value));
    ++seen[size_t(value + 2)];
  }
  for (int count : seen)
    EXPECT_GT(count, 100); // 1000 / 6 = 167 expected each
}

} // namespace
