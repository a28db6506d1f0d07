//===- SpecialValuesTest.cpp - NaN, infinities and overflow in the ops ----===//
//
// The special-value rules of docs/robustness.md on the float64 reference:
// each expectation is worked out by hand from the rule in the comment, and
// each differs from what the reference computed before the rule (noted as
// "before:").
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
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

HostTensor f32(std::vector<int64_t> shape, Values data) {
  return {F32, std::move(shape), std::move(data)};
}

double pow2(int e) { return std::ldexp(1.0, e); }

//===----------------------------------------------------------------------===//
// pool: exp((x - max x) / T) / sum
//===----------------------------------------------------------------------===//

TEST(SpecialValuesTest, TinyTemperatureKeepsEqualMaxima) {
  // T = 2^-126: (x - 100) / T is 0, 0, -2^126 and -inf -> weights 1/2, 1/2,
  // 0, 0; the pooled key is (2 + 4) / 2 = 3.
  HostTensor keys = f32({4, 1}, {2, 4, 8, 16});
  PoolResult r =
      pool(keys, f32({4}, {100, 100, 99, -kInf}), nullptr, 4, pow2(-126), F32);
  EXPECT_EQ(r.weights.data, (Values{0.5, 0.5, 0, 0}));
  EXPECT_EQ(r.pooled.data, (Values{3}));
}

TEST(SpecialValuesTest, NonFiniteLogitsGiveNaNGroups) {
  // NaN anywhere, +inf (inf - inf) and all -inf (-inf - -inf) make every
  // weight of the group NaN, and so its pooled key.
  HostTensor keys = f32({12, 1}, Values(12, 1.0));
  PoolResult r = pool(keys,
                      f32({12}, {0, kNaN, 0, 0,           //
                                 kInf, 0, 0, 0,           //
                                 -kInf, -kInf, -kInf, -kInf}),
                      nullptr, 4, 1.0, F32);
  for (double w : r.weights.data)
    EXPECT_TRUE(std::isnan(w));
  for (double k : r.pooled.data)
    EXPECT_TRUE(std::isnan(k));
}

TEST(SpecialValuesTest, InfiniteKeysPropagate) {
  // Weights 1/2, 1/2, 0, 0 (the -inf scores): 0 * inf is NaN, so an
  // infinite key in a slot of weight 0 still makes its channel NaN.
  HostTensor keys = f32({4, 2}, {1, 2, 3, 4, kInf, 6, 7, -kInf});
  PoolResult r =
      pool(keys, f32({4}, {0, 0, -kInf, -kInf}), nullptr, 4, 1.0, F32);
  EXPECT_TRUE(std::isnan(r.pooled.data[0]) && std::isnan(r.pooled.data[1]));
  // Weights 0, 1/2, 0, 1/2 over keys whose infinities have weight 1/2:
  // channel 0: 0*1 + 0.5*inf + 0*5 + 0.5*7 = inf; channel 1: 0*2 + 0.5*4 +
  // 0*6 + 0.5*-inf = -inf.
  HostTensor other = f32({4, 2}, {1, 2, kInf, 4, 5, 6, 7, -kInf});
  PoolResult kept = pool(other, f32({4}, {-kInf, 0, -kInf, 0}), nullptr, 4,
                         1.0, F32);
  EXPECT_EQ(kept.pooled.data, (Values{kInf, -kInf}));
}

//===----------------------------------------------------------------------===//
// hadamard: f32 overflow after every butterfly stage
//===----------------------------------------------------------------------===//

TEST(SpecialValuesTest, HadamardOverflowsLikeF32) {
  // a = 1.5 * 2^127. Stage h = 1: {2a, 0, -2a, 0} with 2a = 3 * 2^127 beyond
  // FLT_MAX -> {inf, 0, -inf, 0}. Stage h = 2: {inf + -inf, 0, inf - -inf,
  // 0} = {NaN, 0, inf, 0}; times 1/2. Before: exact {0, 0, 4a, 0} / 2.
  double a = 1.5 * pow2(127);
  HostTensor y = hadamard(f32({1, 4}, {a, a, -a, -a}), F32);
  EXPECT_TRUE(std::isnan(y.data[0]));
  EXPECT_EQ(y.data[1], 0);
  EXPECT_EQ(y.data[2], kInf);
  EXPECT_EQ(y.data[3], 0);
}

//===----------------------------------------------------------------------===//
// quantize: NaN-propagating absmax; a non-finite row is all NaN codes
//===----------------------------------------------------------------------===//

TEST(SpecialValuesTest, NonFiniteRowsQuantizeToNaNCodes) {
  // Row 0 holds NaN (before: absmax 3 ignoring it), row 1 +inf (before:
  // scale inf, codes 0), row 2 -inf, row 3 is finite: absmax 4 ->
  // 4 / 448 = 2^-6.8 -> scale 2^-6 with pow2, codes x * 64.
  HostTensor x = f32({4, 2}, {kNaN, -3, 1, kInf, -kInf, 2, 4, -0.5});
  for (bool pow2Scale : {false, true}) {
    QuantizeResult f8 = quantize(x, ElementType::F8E4M3FN, pow2Scale, 1e-3);
    QuantizeResult i8 = quantize(x, ElementType::I8, pow2Scale, 1e-3);
    for (int64_t n = 0; n < 3; ++n) {
      EXPECT_TRUE(std::isnan(f8.scale.data[n])) << n;
      EXPECT_TRUE(std::isnan(i8.scale.data[n])) << n;
      for (int64_t d = 0; d < 2; ++d) {
        // f8: NaN codes (stored as 0x7F); i8: 0.
        EXPECT_TRUE(std::isnan(f8.q.data[n * 2 + d])) << n << " " << d;
        EXPECT_EQ(i8.q.data[n * 2 + d], 0) << n << " " << d;
      }
    }
    EXPECT_FALSE(std::isnan(f8.scale.data[3]));
  }
  QuantizeResult r = quantize(x, ElementType::F8E4M3FN, true, 1e-3);
  EXPECT_EQ(r.scale.data[3], pow2(-6));
  EXPECT_EQ(r.q.data[6], 256);
  EXPECT_EQ(r.q.data[7], -32);
  // dequantize then gives NaN for the whole row.
  HostTensor back = dequantize(r.q, r.scale, F32);
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_TRUE(std::isnan(back.data[i])) << i;
}

TEST(SpecialValuesTest, SubnormalRowsAtTheSmallestMinAbsmax) {
  // min_absmax = 448 * 2^-126, the least the verifier accepts for f8: the
  // scale is 2^-126 (FLT_MIN, normal), so subnormal f32 keys keep their
  // codes: 2^-131 / 2^-126 = 2^-5 (exact in f8), and -3 * 2^-136 ->
  // -3 * 2^-10 = -1.5 f8 quanta of 2^-9, a tie -> -2 quanta = -2^-8.
  HostTensor x = f32({1, 2}, {pow2(-131), -3 * pow2(-136)});
  QuantizeResult r =
      quantize(x, ElementType::F8E4M3FN, false, 448 * pow2(-126));
  EXPECT_EQ(r.scale.data[0], pow2(-126));
  EXPECT_EQ(r.q.data, (Values{pow2(-5), -pow2(-8)}));
}

//===----------------------------------------------------------------------===//
// score: IEEE relu, f32 overflow of every product and sum
//===----------------------------------------------------------------------===//

TEST(SpecialValuesTest, ReluPropagatesNaN) {
  // One head, D = 1: dot = NaN * 1 -> relu NaN -> logit NaN (before: fmax
  // dropped the NaN and gave 0). A -0 dot gives +0.
  HostTensor q = f32({1, 1, 1}, {1});
  HostTensor w = f32({1, 1}, {1});
  HostTensor logits = score(q, w, f32({2, 1}, {kNaN, -0.0}), nullptr);
  EXPECT_TRUE(std::isnan(logits.data[0]));
  EXPECT_EQ(logits.data[1], 0);
  EXPECT_FALSE(std::signbit(logits.data[1]));
}

TEST(SpecialValuesTest, ScoreOverflowsLikeF32) {
  // D = 2, q = {2^64, 2^64}, key {2^63, 2^63}: products 2^127, their sum
  // 2^128 overflows -> inf; times the scale 2^-10 stays inf (before:
  // 2^118). Two heads weighted +1 and -1 of the same inf: inf - inf = NaN
  // (before: 0).
  HostTensor key = f32({1, 2}, {pow2(63), pow2(63)});
  HostTensor oneHead = f32({1, 1, 2}, {pow2(64), pow2(64)});
  HostTensor scale = f32({1}, {pow2(-10)});
  EXPECT_EQ(score(oneHead, f32({1, 1}, {1}), key, &scale).data, (Values{kInf}));
  HostTensor twoHeads =
      f32({1, 2, 2}, {pow2(64), pow2(64), pow2(64), pow2(64)});
  HostTensor logits = score(twoHeads, f32({1, 2}, {1, -1}), key, &scale);
  EXPECT_TRUE(std::isnan(logits.data[0]));
}

} // namespace
