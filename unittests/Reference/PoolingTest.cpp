//===- PoolingTest.cpp - pool, hadamard, quantize and their inverses ------===//
//
// Small inputs whose results are worked out by hand in the comments.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Reference/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace indexpool::ref;

namespace {

using Values = std::vector<double>;

constexpr ElementType F32 = ElementType::F32;
constexpr double kInf = std::numeric_limits<double>::infinity();

HostTensor f32(std::vector<int64_t> shape, Values data) {
  return {F32, std::move(shape), std::move(data)};
}

//===----------------------------------------------------------------------===//
// pool
//===----------------------------------------------------------------------===//

TEST(PoolTest, EqualScoresGiveTheMean) {
  HostTensor keys = f32({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  HostTensor scores = f32({4}, {0, 0, 0, 0});
  PoolResult r = pool(keys, scores, nullptr, 4, 1.0, F32);
  // Mean of 1, 3, 5, 7 and of 2, 4, 6, 8.
  EXPECT_EQ(r.pooled.shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(r.pooled.data, (Values{4, 5}));
  EXPECT_EQ(r.weights.shape, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(r.weights.data, (Values{0.25, 0.25, 0.25, 0.25}));
  EXPECT_EQ(r.weights.type, F32);
}

TEST(PoolTest, KnownSoftmax) {
  // Scores {0, ln 3, 0, 0}: exp -> {1, 3, 1, 1}, sum 6, w = {1/6, 1/2, 1/6,
  // 1/6}. Keys {6, 2, 0, 12}: 1 + 1 + 0 + 2 = 4. The second group has equal
  // scores, so its key {1, 2, 3, 6} averages to 3.
  HostTensor keys = f32({8, 1}, {6, 2, 0, 12, 1, 2, 3, 6});
  HostTensor scores = f32({8}, {0, std::log(3.0), 0, 0, 5, 5, 5, 5});
  PoolResult r = pool(keys, scores, nullptr, 4, 1.0, F32);
  EXPECT_EQ(r.pooled.data, (Values{4, 3}));
  ASSERT_EQ(r.weights.shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(r.weights.data[0], double(1.0f / 6.0f));
  EXPECT_EQ(r.weights.data[1], 0.5);
  EXPECT_EQ(r.weights.data[4], 0.25);
}

TEST(PoolTest, TemperatureDividesTheLogits) {
  // {0, 2 ln 3, 0, 0} / 2 = the {0, ln 3, 0, 0} of KnownSoftmax.
  HostTensor keys = f32({4, 1}, {6, 2, 0, 12});
  HostTensor scores = f32({4}, {0, 2 * std::log(3.0), 0, 0});
  PoolResult r = pool(keys, scores, nullptr, 4, 2.0, F32);
  EXPECT_EQ(r.pooled.data, (Values{4}));
  EXPECT_EQ(r.weights.data[1], 0.5);
}

TEST(PoolTest, PerTokenBias) {
  // Scores 0 plus bias {ln 3, 0} with P = 2: w = {3/4, 1/4}; keys {4, 8}
  // -> 3 + 2 = 5.
  HostTensor keys = f32({2, 1}, {4, 8});
  HostTensor scores = f32({2}, {0, 0});
  HostTensor bias = f32({2}, {std::log(3.0), 0});
  PoolResult r = pool(keys, scores, &bias, 2, 1.0, F32);
  EXPECT_EQ(r.pooled.data, (Values{5}));
  EXPECT_EQ(r.weights.data, (Values{0.75, 0.25}));
}

TEST(PoolTest, PerChannelWithBias) {
  // Channel 0: bias 0 -> the mean of {1, 2, 3, 4} = 2.5.
  // Channel 1: bias {0, 0, 0, ln 3} -> w = {1/6, 1/6, 1/6, 1/2}; keys
  // {6, 12, 0, 2} -> 1 + 2 + 0 + 1 = 4.
  HostTensor keys = f32({4, 2}, {1, 6, 2, 12, 3, 0, 4, 2});
  HostTensor scores = f32({4, 2}, {0, 0, 0, 0, 0, 0, 0, 0});
  HostTensor bias = f32({4, 2}, {0, 0, 0, 0, 0, 0, 0, std::log(3.0)});
  PoolResult r = pool(keys, scores, &bias, 4, 1.0, F32);
  EXPECT_EQ(r.pooled.data, (Values{2.5, 4}));
  // w is [G, P, D]: w[0, s, 0] = 1/4, w[0, 3, 1] = 1/2.
  ASSERT_EQ(r.weights.shape, (std::vector<int64_t>{1, 4, 2}));
  EXPECT_EQ(r.weights.data[0], 0.25);
  EXPECT_EQ(r.weights.data[1], double(1.0f / 6.0f));
  EXPECT_EQ(r.weights.data[6], 0.25);
  EXPECT_EQ(r.weights.data[7], 0.5);
}

TEST(PoolTest, PerChannelWithOneChannelKeepsRankThree) {
  // D = 1 with [T, 1] scores is per-channel: weights [G, P, 1], not [G, P]
  // (found by fuzz/differential.cpp). Scores {0, ln 3}: w = {1/4, 3/4};
  // keys {4, 8} -> 1 + 6 = 7.
  HostTensor keys = f32({2, 1}, {4, 8});
  HostTensor scores = f32({2, 1}, {0, std::log(3.0)});
  PoolResult r = pool(keys, scores, nullptr, 2, 1.0, F32);
  ASSERT_EQ(r.weights.shape, (std::vector<int64_t>{1, 2, 1}));
  EXPECT_NEAR(r.weights.data[0], 0.25, 1e-7);
  EXPECT_NEAR(r.weights.data[1], 0.75, 1e-7);
  EXPECT_NEAR(r.pooled.data[0], 7.0, 1e-6);
}

TEST(PoolTest, IncompleteTailIsDropped) {
  // T = 10, P = 4: G = 2; tokens 8 and 9 must not leak into anything.
  HostTensor keys = f32({10, 1}, {1, 1, 1, 1, 2, 2, 2, 2, 1e6, -1e6});
  HostTensor scores = f32({10}, {0, 0, 0, 0, 0, 0, 0, 0, 100, 100});
  PoolResult r = pool(keys, scores, nullptr, 4, 1.0, F32);
  EXPECT_EQ(r.pooled.shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(r.pooled.data, (Values{1, 2}));
  EXPECT_EQ(r.weights.shape, (std::vector<int64_t>{2, 4}));
  // Fewer tokens than one pool: no groups at all.
  PoolResult empty =
      pool(f32({3, 1}, {1, 2, 3}), f32({3}, {0, 0, 0}), nullptr, 4, 1.0, F32);
  EXPECT_EQ(empty.pooled.shape, (std::vector<int64_t>{0, 1}));
}

TEST(PoolTest, SoftmaxIsStable) {
  // exp(1000) overflows; subtracting the max keeps the equal-score mean.
  HostTensor keys = f32({4, 1}, {1, 2, 3, 6});
  PoolResult high =
      pool(keys, f32({4}, {1000, 1000, 1000, 1000}), nullptr, 4, 1.0, F32);
  PoolResult low =
      pool(keys, f32({4}, {-1000, -1000, -1000, -1000}), nullptr, 4, 1.0, F32);
  EXPECT_EQ(high.pooled.data, (Values{3}));
  EXPECT_EQ(low.pooled.data, (Values{3}));
  // A -inf score gets weight 0: the mean of the other three {1, 2, 3}.
  PoolResult masked =
      pool(keys, f32({4}, {0, 0, 0, -kInf}), nullptr, 4, 1.0, F32);
  EXPECT_EQ(masked.pooled.data, (Values{2}));
  EXPECT_EQ(masked.weights.data[3], 0.0);
}

TEST(PoolTest, PooledIsRoundedOnceToItsType) {
  // Equal scores over {1, 1, 1, 1 + 2^-6}: the mean is 1 + 2^-8, exact in
  // f32 but a bf16 tie between 1 (even) and 1 + 2^-7.
  HostTensor keys = f32({4, 1}, {1, 1, 1, 1 + std::ldexp(1.0, -6)});
  HostTensor scores = f32({4}, {0, 0, 0, 0});
  EXPECT_EQ(pool(keys, scores, nullptr, 4, 1.0, F32).pooled.data,
            (Values{1 + std::ldexp(1.0, -8)}));
  PoolResult bf16 = pool(keys, scores, nullptr, 4, 1.0, ElementType::BF16);
  EXPECT_EQ(bf16.pooled.type, ElementType::BF16);
  EXPECT_EQ(bf16.pooled.data, (Values{1}));
}

TEST(PoolTest, PooledUsesTheUnroundedWeights) {
  // Scores {0, ln 3, ln 3, -inf}: w = {1/7, 3/7, 3/7, 0}; keys {3, -1, 0,
  // 100} cancel: 3/7 - 3/7 = 0 (up to double rounding). With f32 weights it
  // would not: f32(1/7) = 1/7 + (3/7) 2^-26 (8/7 * 2^23 = 9586980.57 rounds
  // up by 0.43 ulp of 2^-26) and f32(3/7) = 3/7 + (1/7) 2^-25, so
  // 3 f32(1/7) - f32(3/7) = (9/7 - 2/7) 2^-26 = 2^-26.
  HostTensor keys = f32({4, 1}, {3, -1, 0, 100});
  HostTensor scores = f32({4}, {0, std::log(3.0), std::log(3.0), -kInf});
  PoolResult r = pool(keys, scores, nullptr, 4, 1.0, F32);
  EXPECT_LT(std::fabs(r.pooled.data[0]), 1e-15);
  EXPECT_EQ(r.weights.data[0], double(1.0f / 7.0f));
  EXPECT_EQ(r.weights.data[1], double(3.0f / 7.0f));
  EXPECT_EQ(3 * r.weights.data[0] - r.weights.data[1], std::ldexp(1.0, -26));
}

TEST(PoolTest, ShapeChecks) {
  HostTensor keys = f32({8, 2}, Values(16, 1));
  HostTensor scores = f32({8}, Values(8, 0));
  EXPECT_EQ(checkPool(keys, scores, nullptr, 4, 1.0), "");
  EXPECT_EQ(checkPool(keys, f32({7}, Values(7, 0)), nullptr, 4, 1.0),
            "pool: scores must be [T] = [8] or [T, D] = [8, 2], got [7]");
  HostTensor channelBias = f32({4, 2}, Values(8, 0));
  EXPECT_EQ(checkPool(keys, scores, &channelBias, 4, 1.0),
            "pool: bias must be [P] (per-token scores) = [4], got [4, 2]");
  EXPECT_EQ(checkPool(keys, scores, nullptr, 0, 1.0),
            "pool: pool_size must be >= 1, got 0");
  EXPECT_NE(checkPool(keys, scores, nullptr, 4, 0.0), "");
  EXPECT_NE(checkPool(keys, scores, nullptr, 4, std::nan("")), "");
  EXPECT_EQ(checkPool(f32({8, -2}, {}), scores, nullptr, 4, 1.0),
            "pool: keys has a negative size: [8, -2]");
  // Checks read shapes only: tensors without data can be checked.
  EXPECT_EQ(checkPool(f32({8, 2}, {}), f32({8, 2}, {}), &channelBias, 4, 1.0),
            "");
}

//===----------------------------------------------------------------------===//
// hadamard
//===----------------------------------------------------------------------===//

TEST(HadamardTest, BasisVectorsGiveSylvesterRows) {
  // H_4 = [[1, 1, 1, 1], [1, -1, 1, -1], [1, 1, -1, -1], [1, -1, -1, 1]],
  // and e_i · H_4 / 2 is row i over 2.
  HostTensor x = f32({4, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  HostTensor y = hadamard(x, F32);
  EXPECT_EQ(y.data, (Values{0.5, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, -0.5, 0.5, 0.5,
                            -0.5, -0.5, 0.5, -0.5, -0.5, 0.5}));
}

TEST(HadamardTest, FirstBasisVectorIsFlat) {
  // e0 · H_8 / sqrt(8): every entry 1 / sqrt(8), rounded to f32.
  Values e0(8, 0.0);
  e0[0] = 1;
  HostTensor y = hadamard(f32({1, 8}, e0), F32);
  EXPECT_EQ(y.data, Values(8, double(float(1 / std::sqrt(8.0)))));
}

TEST(HadamardTest, SelfInverse) {
  // {1, 2, 3, 4} · H_4 / 2 = {10, -2, -4, 0} / 2 = {5, -1, -2, 0};
  // {5, -1, -2, 0} · H_4 / 2 = {2, 4, 6, 8} / 2 = {1, 2, 3, 4}.
  HostTensor once = hadamard(f32({4}, {1, 2, 3, 4}), F32);
  EXPECT_EQ(once.data, (Values{5, -1, -2, 0}));
  EXPECT_EQ(hadamard(once, F32).data, (Values{1, 2, 3, 4}));

  std::mt19937_64 rng(7);
  HostTensor x = randomNormal(F32, {3, 128}, rng);
  HostTensor twice = hadamard(hadamard(x, F32), F32);
  for (size_t i = 0; i < x.data.size(); ++i)
    EXPECT_NEAR(twice.data[i], x.data[i], 1e-6);
}

TEST(HadamardTest, LastDimensionOfAnyRank) {
  // Rank 3 [2, 1, 2]: each pair {a, b} -> {a + b, a - b} / sqrt(2).
  HostTensor x = f32({2, 1, 2}, {1, 1, 3, -1});
  HostTensor y = hadamard(x, F32);
  double r = double(float(std::sqrt(2.0)));
  EXPECT_EQ(y.shape, x.shape);
  EXPECT_EQ(y.data, (Values{r, 0, r, double(float(2 * std::sqrt(2.0)))}));
}

TEST(HadamardTest, RoundsToTheResultType) {
  // {1, 1 + 2^-6} · H_2 / sqrt(2) is irrational; bf16 must equal the bf16
  // rounding of the double result.
  HostTensor x = f32({2}, {1, 1 + std::ldexp(1.0, -6)});
  HostTensor y = hadamard(x, ElementType::BF16);
  EXPECT_EQ(y.type, ElementType::BF16);
  EXPECT_EQ(y.data[0], roundToBF16((2 + std::ldexp(1.0, -6)) / std::sqrt(2.0)));
  EXPECT_EQ(y.data[1], roundToBF16(-std::ldexp(1.0, -6) / std::sqrt(2.0)));
}

TEST(HadamardTest, ShapeChecks) {
  EXPECT_EQ(checkHadamard(f32({2, 6}, Values(12, 0))),
            "hadamard: the last size D of x must be a power of two, got 6");
  EXPECT_NE(checkHadamard(f32({}, {1})), "");
  EXPECT_EQ(checkHadamard(f32({0, 1}, {})), "");
}

//===----------------------------------------------------------------------===//
// quantize / dequantize
//===----------------------------------------------------------------------===//

TEST(QuantizeTest, F8WithPow2Scale) {
  // absmax 1 -> scale 2^-8 (see QuantizationScaleTest); q = x * 256.
  HostTensor x = f32({1, 4}, {1.0, -0.5, 0.25, 0.0});
  QuantizeResult r = quantize(x, ElementType::F8E4M3FN, true);
  EXPECT_EQ(r.scale.data, (Values{std::ldexp(1.0, -8)}));
  EXPECT_EQ(r.q.data, (Values{256, -128, 64, 0}));
  EXPECT_EQ(r.q.type, ElementType::F8E4M3FN);
  EXPECT_EQ(r.scale.type, F32);
}

TEST(QuantizeTest, F8WithPlainScale) {
  // scale = f32(1/448) = (1/448)(1 + e), |e| < 2^-24. 1/scale is 448 up to
  // e (clamped to 448); 0.5/scale ~ 224 and 0.25/scale ~ 112, both f8 values
  // (1.75 * 2^7, 1.75 * 2^6) far from any rounding boundary.
  HostTensor x = f32({1, 4}, {1.0, -0.5, 0.25, 0.0});
  QuantizeResult r = quantize(x, ElementType::F8E4M3FN, false);
  EXPECT_EQ(r.scale.data, (Values{double(1.0f / 448.0f)}));
  EXPECT_EQ(r.q.data, (Values{448, -224, 112, 0}));
}

TEST(QuantizeTest, I8) {
  // pow2: absmax 1 -> scale 2^-6; q = x * 64: {64, 32, -16, 13/2 -> 6 (tie
  // to even)}.
  HostTensor x = f32({1, 4}, {1.0, 0.5, -0.25, 13.0 / 128});
  EXPECT_EQ(quantize(x, ElementType::I8, true).q.data,
            (Values{64, 32, -16, 6}));
  // Plain: scale ~ 1/127; q ~ 127 x: {127, 63.5 (a near-tie, skipped), -31.75
  // -> -32, 12.9 -> 13}.
  QuantizeResult plain = quantize(x, ElementType::I8, false);
  EXPECT_EQ(plain.q.data[0], 127);
  EXPECT_EQ(plain.q.data[2], -32);
  EXPECT_EQ(plain.q.data[3], 13);
}

TEST(QuantizeTest, MinAbsmaxOnAZeroRow) {
  // Row 0 is zero: absmax = min_absmax = 1e-4, scale f32(1e-4 / 448), or
  // 2^-22 with pow2 (1e-4 / 448 = 2.23e-7 lies in (2^-23, 2^-22]).
  HostTensor x = f32({2, 2}, {0, 0, 1, -1});
  QuantizeResult plain = quantize(x, ElementType::F8E4M3FN, false);
  EXPECT_EQ(plain.scale.data[0], roundToF32(1e-4 / 448));
  EXPECT_EQ(plain.q.data[0], 0);
  EXPECT_EQ(plain.q.data[1], 0);
  QuantizeResult pow2 = quantize(x, ElementType::F8E4M3FN, true);
  EXPECT_EQ(pow2.scale.data,
            (Values{std::ldexp(1.0, -22), std::ldexp(1.0, -8)}));
}

TEST(QuantizeTest, MinAbsmaxAboveTheRowMax) {
  // absmax = max(0.5, 4) = 4; 4 / 448 = 1/112 lies in (2^-7, 2^-6]: scale
  // 2^-6 and q = x * 64 = {32, -16}.
  HostTensor x = f32({1, 2}, {0.5, -0.25});
  QuantizeResult r = quantize(x, ElementType::F8E4M3FN, true, 4.0);
  EXPECT_EQ(r.scale.data, (Values{std::ldexp(1.0, -6)}));
  EXPECT_EQ(r.q.data, (Values{32, -16}));
}

TEST(QuantizeTest, EmptyRows) {
  // D = 0: absmax is min_absmax alone; 2^-8 * 448 = 1.75 >= 1.
  QuantizeResult r = quantize(f32({2, 0}, {}), ElementType::F8E4M3FN, true, 1);
  EXPECT_EQ(r.q.shape, (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(r.scale.data, (Values{std::ldexp(1.0, -8), std::ldexp(1.0, -8)}));
}

TEST(QuantizeTest, ShapeChecks) {
  EXPECT_EQ(checkQuantize(f32({4}, Values(4, 1)), ElementType::I8, 1e-4),
            "quantize: x must be [N, D], got [4]");
  EXPECT_EQ(checkQuantize(f32({1, 4}, Values(4, 1)), ElementType::BF16, 1e-4),
            "quantize: the quantized type must be f8E4M3FN or i8, got bf16");
  EXPECT_NE(checkQuantize(f32({1, 4}, Values(4, 1)), ElementType::I8, -1), "");
}

TEST(DequantizeTest, MultipliesByTheRowScale) {
  // Row 0: {448, -224} * 2^-8 = {1.75, -0.875}; row 1: {64, 1} * 0.5.
  HostTensor q{ElementType::F8E4M3FN, {2, 2}, {448, -224, 64, 1}};
  HostTensor scale = f32({2}, {std::ldexp(1.0, -8), 0.5});
  EXPECT_EQ(dequantize(q, scale, F32).data, (Values{1.75, -0.875, 32, 0.5}));
  // 127 * f32(1/127) rounded to f32: the product of two f32 values is exact
  // in double, so this is the f32 product.
  HostTensor qi{ElementType::I8, {1, 1}, {127}};
  HostTensor si = f32({1}, {double(1.0f / 127.0f)});
  EXPECT_EQ(dequantize(qi, si, F32).data[0], double(127.0f * (1.0f / 127.0f)));
  EXPECT_EQ(checkDequantize(q, f32({3}, {1, 1, 1})),
            "dequantize: scale must be [N] = [2], got [3]");
}

TEST(DequantizeTest, InvertsQuantizeWithinOneStep) {
  // |x - dequantize(quantize(x))| <= half a quantization step, where the
  // step of f8 near |v| * scale is at most 2^-4 * |v| * scale (3 bits).
  std::mt19937_64 rng(11);
  HostTensor x = randomNormal(F32, {4, 64}, rng);
  QuantizeResult r = quantize(x, ElementType::F8E4M3FN, true);
  HostTensor back = dequantize(r.q, r.scale, F32);
  for (size_t i = 0; i < x.data.size(); ++i)
    EXPECT_LE(std::fabs(back.data[i] - x.data[i]),
              std::fabs(x.data[i]) / 16 + r.scale.data[i / 64] * 0.002)
        << i;
}

//===----------------------------------------------------------------------===//
// residual / reconstruct
//===----------------------------------------------------------------------===//

TEST(ResidualTest, KeysMinusTheirPool) {
  // T = 5, P = 2: G = 2, the result has 4 rows; token 4 is the dropped tail.
  HostTensor keys = f32({5, 2}, {1, 2, 3, 4, 10, 20, 30, 40, 99, 99});
  HostTensor pooled = f32({2, 2}, {2, 3, 20, 30});
  HostTensor r = residual(keys, pooled, 2, F32);
  EXPECT_EQ(r.shape, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(r.data, (Values{-1, -1, 1, 1, -10, -10, 10, 10}));
  // With the residual, reconstruct gives the pooled keys back exactly.
  EXPECT_EQ(reconstruct(pooled, &r, 2, F32).data,
            (Values{1, 2, 3, 4, 10, 20, 30, 40}));
  // Without it, every token of a pool gets the pooled key.
  EXPECT_EQ(reconstruct(pooled, nullptr, 2, F32).data,
            (Values{2, 3, 2, 3, 20, 30, 20, 30}));
}

TEST(ResidualTest, RoundsToTheResultType) {
  // 1 - 2^-10 in f16 is exact (ulp 2^-11 in [0.5, 1)), in f8 (ulp 2^-4 in
  // [0.5, 1)) it rounds to 1.
  HostTensor keys = f32({2, 1}, {1, 1});
  HostTensor pooled = f32({1, 1}, {std::ldexp(1.0, -10)});
  EXPECT_EQ(residual(keys, pooled, 2, ElementType::F16).data[0],
            1 - std::ldexp(1.0, -10));
  EXPECT_EQ(residual(keys, pooled, 2, ElementType::F8E4M3FN).data[0], 1);
}

TEST(ResidualTest, ShapeChecks) {
  HostTensor keys = f32({5, 2}, Values(10, 0));
  EXPECT_EQ(checkResidual(keys, f32({3, 2}, Values(6, 0)), 2),
            "residual: pooled must be [floor(T / P), D] = [2, 2], got [3, 2]");
  HostTensor pooled = f32({2, 2}, Values(4, 0));
  HostTensor wrong = f32({5, 2}, Values(10, 0));
  EXPECT_EQ(checkReconstruct(pooled, &wrong, 2),
            "reconstruct: residual must be [G*P, D] = [4, 2], got [5, 2]");
}

} // namespace
