//===- CompareTest.cpp - the tolerances of --verify -----------------------===//
//
// Moved with the code from the evaluator's tests: the per-type rules, the
// near-tie rule for selections and the one-line format of --verify.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Compare.h"

#include "indexpool/Reference/Numerics.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>
#include <vector>

using namespace indexpool::runtime;
using indexpool::ref::ElementType;
using indexpool::ref::HostTensor;
namespace ref = indexpool::ref;

namespace {

TEST(CompareTest, F32IsNormwise) {
  HostTensor r{ElementType::F32, {4}, {1.0, -100.0, 0.0, -INFINITY}};
  HostTensor a = r;
  a.data[0] += 5e-4; // 5e-6 of max |r| = 100
  Comparison ok = compareWithReference(a, r);
  EXPECT_TRUE(ok.ok) << ok.reason;
  EXPECT_EQ(ok.differing, 1);
  EXPECT_NEAR(ok.normwiseRelError, 5e-6, 1e-12);
  EXPECT_NEAR(ok.maxRelError, 5e-4, 1e-12);
  a.data[2] = 2e-3; // 2e-5 normwise, infinitely far elementwise
  Comparison bad = compareWithReference(a, r);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.reason, "normwise_rel_err 2e-05 > 1e-05");
  EXPECT_EQ(formatComparison(bad, ElementType::F32),
            "max_abs_err=0.002 max_rel_err=inf normwise_rel_err=2e-05 "
            "differing=2/4 (50%) -> FAILED: normwise_rel_err 2e-05 > 1e-05");
  a = r;
  a.data[3] = INFINITY;
  EXPECT_FALSE(compareWithReference(a, r).ok);
  a.data[3] = std::nan("");
  EXPECT_FALSE(compareWithReference(a, r).ok);
}

TEST(CompareTest, HalfTypesAllowOneUlpPlusOneUlpOfTheLargest) {
  // bf16: ulp(1.0) = 2^-7, ulp(3.0) = 2^-6 = 0.015625 and max|r| = 3, so the
  // allowance is ulp(r) + 2^-6.
  HostTensor r{ElementType::BF16, {3}, {1.0, 3.0, 0.0}};
  HostTensor a{ElementType::BF16, {3}, {1.0 + 0.0078125, 3.0, 0.0}};
  Comparison c = compareWithReference(a, r);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.maxUlpError, 1);
  EXPECT_EQ(c.beyondOneUlp, 0);
  a.data[1] = 3.0 + 2 * 0.015625; // 2 ulp = ulp(3) + ulp(max)
  c = compareWithReference(a, r);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.beyondOneUlp, 1);
  a.data[1] = 3.0 + 3 * 0.015625; // 3 ulp
  c = compareWithReference(a, r);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.maxUlpError, 3);
  // A sum that cancels: 1e-3 next to 100 (ulp 0.5) may be 0.2 off.
  HostTensor rc{ElementType::BF16, {2}, {100.0, ref::roundToBF16(1e-3)}};
  HostTensor ac = rc;
  ac.data[1] = 0.2;
  c = compareWithReference(ac, rc);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.beyondOneUlp, 1);
  ac.data[1] = 0.75;
  EXPECT_FALSE(compareWithReference(ac, rc).ok);
  // f16 subnormals: ulp 2^-24 around zero, max|r| = 0 adds another 2^-24.
  HostTensor rf{ElementType::F16, {1}, {0.0}};
  HostTensor af{ElementType::F16, {1}, {std::ldexp(1.0, -23)}};
  EXPECT_TRUE(compareWithReference(af, rf).ok);
  af.data[0] = std::ldexp(1.0, -22);
  EXPECT_FALSE(compareWithReference(af, rf).ok);
}

TEST(CompareTest, QuantizedCodesAllowFewOffByOne) {
  HostTensor r = HostTensor::zeros(ElementType::F8E4M3FN, {2000});
  for (size_t i = 0; i < r.data.size(); ++i)
    r.data[i] = ref::decodeF8E4M3FN(uint8_t(i % 0x7E));
  HostTensor a = r;
  // 2 of 2000 = 0.1%: one code up (1.0 -> 1.125), one across zero.
  a.data[56] = 1.125;
  ASSERT_EQ(r.data[56], 1.0);
  a.data[0] = ref::decodeF8E4M3FN(0x81); // -smallest subnormal vs +0
  Comparison c = compareWithReference(a, r);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.offByOne, 2);
  EXPECT_EQ(formatComparison(c, ElementType::F8E4M3FN),
            "max_abs_err=0.125 max_rel_err=inf differing=2/2000 (0.1%) "
            "off_by_one=2 beyond_one_code=0 -> ok");
  a.data[57] = r.data[57] == 1.125 ? 1.25 : ref::decodeF8E4M3FN(57 + 1);
  c = compareWithReference(a, r);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "differing codes 3 > 0.1% of 2000");
  // Two codes away but within 2^-8 * 448 = 1.75: a small code moved by a
  // one-ulp difference upstream.
  a = r;
  a.data[56] = 1.25;
  c = compareWithReference(a, r);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.beyondOneCode, 1);
  a.data[56] = 4.0; // 3 away: more than 1.75
  EXPECT_FALSE(compareWithReference(a, r).ok);
  // Opposite signs are never one code apart.
  a = r;
  a.data[56] = -1.0;
  EXPECT_FALSE(compareWithReference(a, r).ok);

  HostTensor ri{ElementType::I8, {1000}, std::vector<double>(1000, 3.0)};
  HostTensor ai = ri;
  ai.data[7] = 4;
  EXPECT_TRUE(compareWithReference(ai, ri).ok);
  ai.data[8] = 2;
  EXPECT_FALSE(compareWithReference(ai, ri).ok); // 2 of 1000 > 0.1%
}

TEST(CompareTest, SpecialValuesMustMatchExactly) {
  // NaN where the reference is NaN, the same infinity where it is infinite,
  // whatever the tolerances of the type.
  for (ElementType type : {ElementType::F32, ElementType::BF16,
                           ElementType::F16, ElementType::F8E4M3FN}) {
    double big = type == ElementType::F8E4M3FN ? 448 : INFINITY;
    HostTensor r{type, {3}, {std::nan(""), big, 1.0}};
    HostTensor a = r;
    Comparison c = compareWithReference(a, r);
    EXPECT_TRUE(c.ok) << c.reason;
    EXPECT_EQ(c.differing, 0);
    a.data[0] = 1.0;
    EXPECT_FALSE(compareWithReference(a, r).ok) << ref::elementTypeName(type);
    a = r;
    a.data[2] = std::nan("");
    EXPECT_FALSE(compareWithReference(a, r).ok) << ref::elementTypeName(type);
    if (type != ElementType::F8E4M3FN) {
      a = r;
      a.data[1] = -INFINITY;
      EXPECT_FALSE(compareWithReference(a, r).ok);
    }
  }
}

TEST(CompareTest, NarrowFloatNaNsMustBeTheCanonicalPositiveOne) {
  // A quantized row with a NaN scale is all 0x7F codes; 0xFF (the NaN with
  // the sign bit) is the mark of an encoder that kept the sign.
  HostTensor r{ElementType::F8E4M3FN, {4}, {1.0, 2.0, std::nan(""), 0.5}};
  HostTensor a = r;
  EXPECT_TRUE(compareWithReference(a, r).ok);
  a.data[2] = ref::decodeF8E4M3FN(0xFF);
  ASSERT_TRUE(std::isnan(a.data[2]) && std::signbit(a.data[2]));
  Comparison c = compareWithReference(a, r);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason,
            "element 2 is a negative NaN, expected the canonical positive NaN");
  HostTensor rb{ElementType::BF16, {2}, {std::nan(""), 1.0}};
  HostTensor ab = rb;
  ab.data[0] = ref::decodeBF16(0xFFC0);
  EXPECT_FALSE(compareWithReference(ab, rb).ok);
  // f32 results are not encoded by the kernels: any NaN is a NaN.
  HostTensor rf{ElementType::F32, {1}, {std::nan("")}};
  HostTensor af{ElementType::F32, {1}, {-std::nan("")}};
  EXPECT_TRUE(compareWithReference(af, rf).ok);
}

TEST(CompareTest, IndicesAllowOnlyNearTieSwaps) {
  // Row 0 logits: columns 1 and 2 tie within 1e-5 relative.
  SelectionContext selection;
  selection.logits =
      HostTensor{ElementType::F32, {1, 4}, {0.5, 2.0, 2.0 + 1e-6, 1.0}};
  HostTensor r{ElementType::I32, {1, 3}, {2, 1, 3}};
  HostTensor a{ElementType::I32, {1, 3}, {1, 2, 3}};
  Comparison c = compareWithReference(a, r, &selection);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.nearTieSwaps, 2);
  EXPECT_EQ(c.differing, 2);
  EXPECT_EQ(formatComparison(c, ElementType::I32),
            "max_abs_err=1 max_rel_err=1 differing=2/3 (66.67%) "
            "near_tie_swaps=2 -> ok");
  // Without the context indices must be equal.
  EXPECT_FALSE(compareWithReference(a, r).ok);
  // A real error: column 0 instead of column 3.
  a = HostTensor{ElementType::I32, {1, 3}, {2, 1, 0}};
  c = compareWithReference(a, r, &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 0 slot 2: index 0 (logit 0.5) instead of 3 "
                      "(logit 1)");
  // The same column twice is never a near tie.
  a = HostTensor{ElementType::I32, {1, 3}, {2, 2, 3}};
  EXPECT_FALSE(compareWithReference(a, r, &selection).ok);
  // Columns beyond the valid length are never selectable.
  selection.valid = HostTensor{ElementType::I32, {1}, {3}};
  r = HostTensor{ElementType::I32, {1, 3}, {2, 1, 0}};
  selection.logits.data[3] = 0.5;
  a = HostTensor{ElementType::I32, {1, 3}, {2, 1, 3}};
  c = compareWithReference(a, r, &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 0 slot 2: index 3 is outside the 3 valid columns");
}

TEST(CompareTest, ExpandedIndicesSwapWholePools) {
  SelectionContext selection;
  selection.logits = HostTensor{ElementType::F32, {1, 3}, {1.0, 1.0, 0.0}};
  selection.poolSize = 2;
  HostTensor r{ElementType::I32, {1, 6}, {0, 1, 2, 3, -1, -1}};
  HostTensor a{ElementType::I32, {1, 6}, {2, 3, 0, 1, -1, -1}};
  Comparison c = compareWithReference(a, r, &selection);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.nearTieSwaps, 2);
  EXPECT_EQ(c.differing, 4);
  // Not an expansion of one pool.
  a = HostTensor{ElementType::I32, {1, 6}, {2, 1, 0, 3, -1, -1}};
  c = compareWithReference(a, r, &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 0 slot 0: 1 is not an expansion of one pool");
  // -1 where the reference has a pool.
  a = HostTensor{ElementType::I32, {1, 6}, {0, 1, -1, -1, -1, -1}};
  EXPECT_FALSE(compareWithReference(a, r, &selection).ok);
}

TEST(CompareTest, RefineTokensStandForTheirCandidateColumns) {
  // Candidates 7, 9, 7, -1, 4: the two 7s have equal logits (one key row).
  SelectionContext selection;
  selection.candidates = HostTensor{ElementType::I32, {1, 5}, {7, 9, 7, -1, 4}};
  selection.logits = HostTensor{
      ElementType::F32, {1, 5}, {2.0, 1.0, 2.0, std::nan(""), 1.0 + 1e-6}};
  HostTensor r{ElementType::I32, {1, 4}, {7, 7, 4, 9}};
  // 9 and 4 are a near tie; the 7s are one token twice.
  HostTensor a{ElementType::I32, {1, 4}, {7, 7, 9, 4}};
  Comparison c = compareWithReference(a, r, &selection);
  EXPECT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.nearTieSwaps, 2);
  // A token more often than it is a candidate.
  a = HostTensor{ElementType::I32, {1, 4}, {7, 7, 7, 9}};
  c = compareWithReference(a, r, &selection);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "row 0 slot 2: token 7 is not a candidate of its row "
                      "(or is taken more often than it is one)");
  // -1 (padding) where the reference has a token.
  a = HostTensor{ElementType::I32, {1, 4}, {7, 7, 4, -1}};
  EXPECT_FALSE(compareWithReference(a, r, &selection).ok);
}

} // namespace
