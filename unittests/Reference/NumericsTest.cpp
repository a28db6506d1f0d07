//===- NumericsTest.cpp - rounding and encodings of the element types -----===//
//
// Expected values are worked out by hand in the comments; where a value is
// not a short binary fraction, the expectation comes from an independent
// source (the hardware's float conversion, or the compiler's _Float16).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Reference/Numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace indexpool::ref;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double pow2(int e) { return std::ldexp(1.0, e); }

//===----------------------------------------------------------------------===//
// Element type names
//===----------------------------------------------------------------------===//

TEST(ElementTypeTest, NamesRoundTrip) {
  for (ElementType type :
       {ElementType::F32, ElementType::F16, ElementType::BF16,
        ElementType::F8E4M3FN, ElementType::I8, ElementType::I32,
        ElementType::I64, ElementType::I4, ElementType::F4E2M1FN})
    EXPECT_EQ(parseElementType(elementTypeName(type)), type);
  EXPECT_STREQ(elementTypeName(ElementType::I4), "i4");
  EXPECT_STREQ(elementTypeName(ElementType::F8E4M3FN), "f8E4M3FN");
  EXPECT_EQ(parseElementType("f8e4m3fn"), std::nullopt); // case matters
  EXPECT_EQ(parseElementType("f64"), std::nullopt);
}

TEST(ElementTypeTest, ByteSizesAndClasses) {
  EXPECT_EQ(elementTypeBytes(ElementType::F32), 4);
  EXPECT_EQ(elementTypeBytes(ElementType::BF16), 2);
  EXPECT_EQ(elementTypeBytes(ElementType::F16), 2);
  EXPECT_EQ(elementTypeBytes(ElementType::F8E4M3FN), 1);
  EXPECT_EQ(elementTypeBytes(ElementType::I8), 1);
  EXPECT_EQ(elementTypeBytes(ElementType::I32), 4);
  EXPECT_TRUE(isFloatType(ElementType::F8E4M3FN));
  EXPECT_FALSE(isFloatType(ElementType::I8));
  EXPECT_FALSE(isFloatType(ElementType::I4));
}

//===----------------------------------------------------------------------===//
// f32
//===----------------------------------------------------------------------===//

TEST(RoundToF32Test, TiesToEven) {
  // The f32 ulp of [1, 2) is 2^-23; 1 + 2^-24 is the midpoint of 1 (even)
  // and 1 + 2^-23 (odd).
  EXPECT_EQ(roundToF32(1 + pow2(-24)), 1.0);
  // 1 + 3*2^-24 lies between 1 + 2^-23 (odd) and 1 + 2^-22 (even).
  EXPECT_EQ(roundToF32(1 + 3 * pow2(-24)), 1 + pow2(-22));
  // Just above the midpoint goes up.
  EXPECT_EQ(roundToF32(1 + pow2(-24) + pow2(-50)), 1 + pow2(-23));
}

TEST(RoundToF32Test, SubnormalsAndOverflow) {
  // Smallest subnormal 2^-149; 2^-150 ties between 0 (even) and 2^-149.
  EXPECT_EQ(roundToF32(pow2(-149)), pow2(-149));
  EXPECT_EQ(roundToF32(pow2(-150)), 0.0);
  EXPECT_EQ(roundToF32(3 * pow2(-150)), pow2(-148));
  // Max finite (2 - 2^-23) * 2^127; the midpoint to 2^128 rounds to "even"
  // 2^128, which overflows.
  double maxF32 = std::ldexp(2 - pow2(-23), 127);
  EXPECT_EQ(roundToF32(maxF32), maxF32);
  EXPECT_EQ(roundToF32(std::ldexp(2 - pow2(-24), 127)), kInf);
  EXPECT_EQ(roundToF32(std::ldexp(2 - pow2(-24) - pow2(-40), 127)), maxF32);
  EXPECT_EQ(roundToF32(-1e300), -kInf);
}

TEST(RoundToF32Test, AgreesWithHardwareConversion) {
  // The CPU's double -> float conversion is correctly rounded (ties to even).
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> mantissa(-2, 2);
  std::uniform_int_distribution<int> exponent(-160, 130);
  for (int i = 0; i < 100000; ++i) {
    double x = std::ldexp(mantissa(rng), exponent(rng));
    EXPECT_EQ(roundToF32(x), double(float(x))) << x;
  }
}

TEST(RoundToF32Test, SpecialValues) {
  EXPECT_TRUE(std::isnan(roundToF32(kNaN)));
  EXPECT_EQ(roundToF32(kInf), kInf);
  EXPECT_TRUE(std::signbit(roundToF32(-0.0)));
  // -2^-151 rounds to zero and keeps its sign.
  EXPECT_TRUE(std::signbit(roundToF32(-pow2(-151))));
}

//===----------------------------------------------------------------------===//
// bf16: 8 exponent bits, 7 mantissa bits
//===----------------------------------------------------------------------===//

TEST(BF16Test, TiesToEven) {
  // ulp of [1, 2) is 2^-7; 1 + 2^-8 is the midpoint of 1 and 1 + 2^-7.
  EXPECT_EQ(roundToBF16(1 + pow2(-8)), 1.0);
  // 1 + 3*2^-8: between 1 + 2^-7 (mantissa 1, odd) and 1 + 2^-6 (2, even).
  EXPECT_EQ(roundToBF16(1 + 3 * pow2(-8)), 1 + pow2(-6));
}

TEST(BF16Test, NoDoubleRoundingThroughF32) {
  // 1 + 2^-8 + 2^-30 is above the bf16 midpoint, so it rounds up. Through f32
  // it would first become 1 + 2^-8 (2^-30 is below f32's half ulp) and then
  // tie to 1.0.
  EXPECT_EQ(roundToBF16(1 + pow2(-8) + pow2(-30)), 1 + pow2(-7));
}

TEST(BF16Test, Encodings) {
  // pi: ulp of [2, 4) is 2^-6; pi / 2^-6 = 201.06 -> 201 * 2^-6 = 3.140625.
  // Bits: sign 0, exponent 1 + 127 = 0x80, mantissa (201 - 128) = 73 =
  // 0b1001001 -> 0 10000000 1001001 = 0x4049.
  const double pi = std::acos(-1.0);
  EXPECT_EQ(roundToBF16(pi), 3.140625);
  EXPECT_EQ(encodeBF16(pi), 0x4049);
  EXPECT_EQ(decodeBF16(0x4049), 3.140625);
  EXPECT_EQ(encodeBF16(1.0), 0x3F80);
  EXPECT_EQ(encodeBF16(-2.0), 0xC000);
  EXPECT_EQ(encodeBF16(-0.0), 0x8000);
  EXPECT_EQ(encodeBF16(kInf), 0x7F80);
  EXPECT_EQ(encodeBF16(kNaN), 0x7FC0);
  EXPECT_EQ(encodeBF16(-kNaN), 0x7FC0);
  EXPECT_EQ(decodeBF16(0xFF80), -kInf);
  EXPECT_TRUE(std::isnan(decodeBF16(0x7FC1)));
}

TEST(BF16Test, SubnormalsAndOverflow) {
  // Smallest subnormal 2^(-126-7) = 2^-133, bits 0x0001.
  EXPECT_EQ(encodeBF16(pow2(-133)), 0x0001);
  EXPECT_EQ(decodeBF16(0x0001), pow2(-133));
  EXPECT_EQ(roundToBF16(pow2(-134)), 0.0);            // tie -> 0 (even)
  EXPECT_EQ(roundToBF16(3 * pow2(-134)), pow2(-132)); // tie -> 2 ulps
  EXPECT_EQ(roundToBF16(pow2(-134) + pow2(-140)), pow2(-133));
  // Max finite (2 - 2^-7) * 2^127 ~ 3.3895e38. 3.4e38 / 2^127 = 1.9983 is
  // above the midpoint 1.99609375 to 2^128: inf.
  EXPECT_EQ(roundToBF16(std::ldexp(2 - pow2(-7), 127)),
            std::ldexp(2 - pow2(-7), 127));
  EXPECT_EQ(roundToBF16(3.4e38), kInf);
  EXPECT_EQ(encodeBF16(3.4e38), 0x7F80);
}

TEST(BF16Test, AgreesWithF32BitRounding) {
  // Independent oracle for f32 inputs: bf16 is the top half of the f32
  // pattern, rounded to nearest even on the lower 16 bits.
  std::mt19937_64 rng(2);
  for (int i = 0; i < 100000; ++i) {
    uint32_t bits = uint32_t(rng());
    float f;
    std::memcpy(&f, &bits, 4);
    if (std::isnan(f))
      continue;
    uint32_t lsb = (bits >> 16) & 1;
    uint16_t expected = uint16_t((bits + 0x7FFF + lsb) >> 16);
    EXPECT_EQ(encodeBF16(f), expected) << std::hex << bits;
  }
}

TEST(BF16Test, EveryPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    double value = decodeBF16(uint16_t(bits));
    if (std::isnan(value))
      continue;
    EXPECT_EQ(roundToBF16(value), value);
    EXPECT_EQ(encodeBF16(value), bits);
  }
}

//===----------------------------------------------------------------------===//
// f16: 5 exponent bits, 10 mantissa bits, max 65504
//===----------------------------------------------------------------------===//

TEST(F16Test, Encodings) {
  // 1/3 = 1.333 * 2^-2: mantissa 0.333 * 1024 = 341.33 -> 341 = 0x155,
  // exponent -2 + 15 = 13: 0 01101 0101010101 = 0x3555, value 1365/4096.
  EXPECT_EQ(encodeF16(1.0 / 3), 0x3555);
  EXPECT_EQ(roundToF16(1.0 / 3), 1365.0 / 4096);
  // 0.1 = 1.6 * 2^-4: 0.6 * 1024 = 614.4 -> 614 = 0x266, exponent 11:
  // 0 01011 1001100110 = 0x2E66, value 1638/16384.
  EXPECT_EQ(encodeF16(0.1), 0x2E66);
  EXPECT_EQ(decodeF16(0x2E66), 1638.0 / 16384);
  EXPECT_EQ(decodeF16(0x3C00), 1.0);
  EXPECT_EQ(decodeF16(0xC000), -2.0);
  EXPECT_EQ(decodeF16(0x7C00), kInf);
  EXPECT_EQ(decodeF16(0xFC00), -kInf);
  EXPECT_TRUE(std::isnan(decodeF16(0x7E00)));
  EXPECT_EQ(encodeF16(kNaN), 0x7E00);
  // Every NaN is stored as the one canonical positive NaN, sign dropped.
  EXPECT_EQ(encodeF16(-kNaN), 0x7E00);
}

TEST(F16Test, TiesToEven) {
  // ulp of [2048, 4096) is 2: 2049 ties to 2048 (even), 2051 to 2052.
  EXPECT_EQ(roundToF16(2049), 2048);
  EXPECT_EQ(roundToF16(2051), 2052);
  EXPECT_EQ(roundToF16(2049.001), 2050);
}

TEST(F16Test, SubnormalsAndOverflow) {
  // Smallest subnormal 2^(-14-10) = 2^-24.
  EXPECT_EQ(encodeF16(pow2(-24)), 0x0001);
  EXPECT_EQ(roundToF16(pow2(-25)), 0.0);           // tie -> 0
  EXPECT_EQ(roundToF16(3 * pow2(-25)), pow2(-23)); // tie -> 2 ulps (even)
  EXPECT_EQ(roundToF16(pow2(-25) + pow2(-60)), pow2(-24));
  EXPECT_EQ(decodeF16(0x03FF), 1023 * pow2(-24)); // largest subnormal
  // 65504 = (2 - 2^-10) * 2^15; 65520 is the midpoint to 65536 and ties to
  // the even 65536, which overflows to inf.
  EXPECT_EQ(encodeF16(65504), 0x7BFF);
  EXPECT_EQ(roundToF16(65519.99), 65504);
  EXPECT_EQ(roundToF16(65520), kInf);
  EXPECT_EQ(roundToF16(-70000), -kInf);
}

TEST(F16Test, EveryPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    double value = decodeF16(uint16_t(bits));
    if (std::isnan(value))
      continue;
    EXPECT_EQ(roundToF16(value), value);
    EXPECT_EQ(encodeF16(value), bits);
  }
}

#if defined(__FLT16_MAX__)
TEST(F16Test, AgreesWithCompilerFloat16) {
  // The compiler's double -> _Float16 conversion rounds once, to nearest even.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> mantissa(-2, 2);
  std::uniform_int_distribution<int> exponent(-28, 17);
  for (int i = 0; i < 100000; ++i) {
    double x = std::ldexp(mantissa(rng), exponent(rng));
    EXPECT_EQ(roundToF16(x), double(_Float16(x))) << x;
  }
}
#endif

//===----------------------------------------------------------------------===//
// f8E4M3FN: 4 exponent bits (bias 7), 3 mantissa bits, max 448, no inf
//===----------------------------------------------------------------------===//

TEST(F8E4M3FNTest, Encodings) {
  // 448 = 1.75 * 2^8: exponent 15, mantissa 110 -> 0 1111 110 = 0x7E.
  EXPECT_EQ(encodeF8E4M3FN(448), 0x7E);
  EXPECT_EQ(decodeF8E4M3FN(0x7E), 448);
  EXPECT_EQ(decodeF8E4M3FN(0xFE), -448);
  // Exponent 15 is a normal binade in FN: 0x78 = 2^8.
  EXPECT_EQ(decodeF8E4M3FN(0x78), 256);
  EXPECT_EQ(decodeF8E4M3FN(0x38), 1.0);          // 0 0111 000
  EXPECT_EQ(decodeF8E4M3FN(0x08), pow2(-6));     // smallest normal
  EXPECT_EQ(decodeF8E4M3FN(0x07), 7 * pow2(-9)); // largest subnormal
  EXPECT_EQ(decodeF8E4M3FN(0x01), pow2(-9));     // smallest subnormal
  // Only S.1111.111 is NaN.
  EXPECT_TRUE(std::isnan(decodeF8E4M3FN(0x7F)));
  EXPECT_TRUE(std::isnan(decodeF8E4M3FN(0xFF)));
  EXPECT_EQ(encodeF8E4M3FN(kNaN), 0x7F);
  EXPECT_EQ(encodeF8E4M3FN(-kNaN), 0x7F);
  EXPECT_EQ(encodeF8E4M3FN(-0.0), 0x80);
  // 0.3 in [0.25, 0.5), ulp 2^-5: 0.3 / 2^-5 = 9.6 -> 10 -> 0.3125
  // = 1.25 * 2^-2: exponent 5, mantissa 010 -> 0 0101 010 = 0x2A.
  EXPECT_EQ(roundToF8E4M3FN(0.3), 0.3125);
  EXPECT_EQ(encodeF8E4M3FN(0.3), 0x2A);
}

TEST(F8E4M3FNTest, TiesToEven) {
  // ulp of [1, 2) is 2^-3: 1.0625 ties to 1.0 (even), 1.1875 to 1.25.
  EXPECT_EQ(roundToF8E4M3FN(1.0625), 1.0);
  EXPECT_EQ(roundToF8E4M3FN(1.1875), 1.25);
  // ulp of [16, 32) is 2: 17 -> 16, 19 -> 20.
  EXPECT_EQ(roundToF8E4M3FN(17), 16);
  EXPECT_EQ(roundToF8E4M3FN(19), 20);
  EXPECT_EQ(roundToF8E4M3FN(-19), -20);
}

TEST(F8E4M3FNTest, Subnormals) {
  EXPECT_EQ(roundToF8E4M3FN(pow2(-10)), 0.0);          // tie -> 0
  EXPECT_EQ(roundToF8E4M3FN(3 * pow2(-10)), pow2(-8)); // tie -> 2 ulps
  EXPECT_EQ(roundToF8E4M3FN(pow2(-10) + pow2(-20)), pow2(-9));
  EXPECT_EQ(encodeF8E4M3FN(5 * pow2(-9)), 0x05);
}

TEST(F8E4M3FNTest, SaturatesLikeSatfinite) {
  // 464 is the midpoint of 448 (mantissa 110, even) and the NaN pattern
  // value 480; everything above 448 saturates, infinities included.
  EXPECT_EQ(roundToF8E4M3FN(449), 448);
  EXPECT_EQ(roundToF8E4M3FN(464), 448);
  EXPECT_EQ(roundToF8E4M3FN(470), 448);
  EXPECT_EQ(roundToF8E4M3FN(1e30), 448);
  EXPECT_EQ(roundToF8E4M3FN(kInf), 448);
  EXPECT_EQ(roundToF8E4M3FN(-kInf), -448);
  EXPECT_EQ(encodeF8E4M3FN(-1000), 0xFE);
  EXPECT_TRUE(std::isnan(roundToF8E4M3FN(kNaN)));
}

TEST(F8E4M3FNTest, MidpointsRoundToTheEvenCode) {
  // Between two adjacent non-negative codes c and c+1 the midpoint goes to
  // the even one; anything off the midpoint goes to the nearer one.
  for (uint8_t code = 0; code < 0x7E; ++code) {
    double lo = decodeF8E4M3FN(code), hi = decodeF8E4M3FN(code + 1);
    double mid = (lo + hi) / 2, quarter = (hi - lo) / 4;
    EXPECT_EQ(roundToF8E4M3FN(mid), code % 2 == 0 ? lo : hi) << int(code);
    EXPECT_EQ(roundToF8E4M3FN(mid - quarter), lo);
    EXPECT_EQ(roundToF8E4M3FN(mid + quarter), hi);
    EXPECT_EQ(encodeF8E4M3FN(lo), code);
    EXPECT_EQ(encodeF8E4M3FN(-hi), 0x80 | (code + 1));
  }
}

TEST(F8E4M3FNTest, SaturationBoundaryAndNaN) {
  // Between 448 (0x7E, mantissa 110) and the NaN pattern's 480: 456 is a
  // quarter step up, 464 the midpoint (ties to 448, the even mantissa),
  // 464 + 2^-20 is past it and still saturates instead of becoming NaN.
  EXPECT_EQ(encodeF8E4M3FN(456), 0x7E);
  EXPECT_EQ(encodeF8E4M3FN(464), 0x7E);
  EXPECT_EQ(encodeF8E4M3FN(464 + pow2(-20)), 0x7E);
  EXPECT_EQ(encodeF8E4M3FN(-464), 0xFE);
  // 416 = 0x7D (1.625 * 2^8), 432 is the midpoint of 0x7D (odd) and 0x7E
  // (even) -> 448.
  EXPECT_EQ(encodeF8E4M3FN(432), 0x7E);
  EXPECT_EQ(encodeF8E4M3FN(432 - pow2(-20)), 0x7D);
  // Subnormal midpoints: 1.5 * 2^-9 lies between 0x01 (odd) and 0x02 ->
  // 0x02; 2.5 * 2^-9 between 0x02 (even) and 0x03 -> 0x02; 7.5 * 2^-9
  // between 0x07 and the smallest normal 0x08 (even) -> 0x08.
  EXPECT_EQ(encodeF8E4M3FN(1.5 * pow2(-9)), 0x02);
  EXPECT_EQ(encodeF8E4M3FN(2.5 * pow2(-9)), 0x02);
  EXPECT_EQ(encodeF8E4M3FN(-2.5 * pow2(-9)), 0x82);
  EXPECT_EQ(encodeF8E4M3FN(7.5 * pow2(-9)), 0x08);
}

// bf16 and f16 midpoints between every pair of adjacent non-negative finite
// codes go to the even code; the midpoint between the largest finite value
// (odd mantissa) and infinity overflows to infinity.
TEST(BF16Test, EveryMidpointRoundsToTheEvenCode) {
  for (uint32_t code = 0; code < 0x7F7F; ++code) {
    double lo = decodeBF16(uint16_t(code)), hi = decodeBF16(uint16_t(code + 1));
    double mid = (lo + hi) / 2;
    ASSERT_EQ(encodeBF16(mid), code % 2 == 0 ? code : code + 1) << code;
    ASSERT_EQ(encodeBF16(-mid), 0x8000 | (code % 2 == 0 ? code : code + 1));
  }
  double max = decodeBF16(0x7F7F), ulp = pow2(127 - 7);
  EXPECT_EQ(encodeBF16(max + ulp / 2), 0x7F80);
  EXPECT_EQ(encodeBF16(max + ulp / 2 - pow2(100)), 0x7F7F);
}

TEST(F16Test, EveryMidpointRoundsToTheEvenCode) {
  for (uint32_t code = 0; code < 0x7BFF; ++code) {
    double lo = decodeF16(uint16_t(code)), hi = decodeF16(uint16_t(code + 1));
    double mid = (lo + hi) / 2;
    ASSERT_EQ(encodeF16(mid), code % 2 == 0 ? code : code + 1) << code;
  }
  // 65504 + 16 is the midpoint of 65504 (0x7BFF, odd) and 2^16 -> inf.
  EXPECT_EQ(encodeF16(65520), 0x7C00);
  EXPECT_EQ(encodeF16(65520 - pow2(-10)), 0x7BFF);
}

//===----------------------------------------------------------------------===//
// Integers
//===----------------------------------------------------------------------===//

TEST(RoundToI8Test, EveryMidpointRoundsToTheEvenInteger) {
  for (int k = -128; k < 127; ++k) {
    double mid = k + 0.5;
    int even = k % 2 == 0 ? k : k + 1;
    ASSERT_EQ(roundToI8(mid), even) << k;
    ASSERT_EQ(roundToI8(mid - pow2(-20)), k);
    ASSERT_EQ(roundToI8(mid + pow2(-20)), k + 1);
  }
  // Beyond the range: saturation, not wrap-around, at the midpoints too.
  EXPECT_EQ(roundToI8(127.5), 127);
  EXPECT_EQ(roundToI8(-128.5), -128);
}

TEST(RoundToI8Test, HalfToEvenAndSaturation) {
  EXPECT_EQ(roundToI8(2.5), 2);
  EXPECT_EQ(roundToI8(-2.5), -2);
  EXPECT_EQ(roundToI8(3.5), 4);
  EXPECT_EQ(roundToI8(0.5), 0);
  EXPECT_EQ(roundToI8(1.5), 2);
  EXPECT_EQ(roundToI8(2.5000001), 3);
  EXPECT_EQ(roundToI8(200), 127);
  EXPECT_EQ(roundToI8(127.5), 127);
  EXPECT_EQ(roundToI8(-128.4), -128);
  EXPECT_EQ(roundToI8(-1000), -128);
  EXPECT_EQ(roundToI8(kInf), 127);
  EXPECT_EQ(roundToI8(kNaN), 0);
  // Integers have no -0.
  EXPECT_FALSE(std::signbit(roundToI8(-0.4)));
}

TEST(RoundToI32Test, HalfToEvenAndSaturation) {
  EXPECT_EQ(roundToI32(-7.5), -8);
  EXPECT_EQ(roundToI32(1e10), 2147483647);
  EXPECT_EQ(roundToI32(-1e10), -2147483648.0);
  EXPECT_EQ(roundToI32(kNaN), 0);
}

TEST(RoundToTest, Dispatches) {
  // 1 + 2^-8 + 2^-10 (= 1.0048828125): bf16 (ulp 2^-7) -> 1 + 2^-7;
  // f8 (ulp 2^-3) -> 1; f16 and f32 hold it exactly; i8 -> 1.
  double x = 1 + pow2(-8) + pow2(-10);
  EXPECT_EQ(roundTo(x, ElementType::BF16), 1 + pow2(-7));
  EXPECT_EQ(roundTo(x, ElementType::F8E4M3FN), 1);
  EXPECT_EQ(roundTo(x, ElementType::F16), x);
  EXPECT_EQ(roundTo(x, ElementType::F32), x);
  EXPECT_EQ(roundTo(x, ElementType::I8), 1);
  EXPECT_EQ(roundTo(-3.5, ElementType::I32), -4);
  // i4: half to even, saturating to [-8, 7], NaN -> 0.
  EXPECT_EQ(roundTo(2.5, ElementType::I4), 2);
  EXPECT_EQ(roundTo(-6.5, ElementType::I4), -6);
  EXPECT_EQ(roundTo(9.0, ElementType::I4), 7);
  EXPECT_EQ(roundTo(-20.0, ElementType::I4), -8);
  EXPECT_EQ(roundTo(std::nan(""), ElementType::I4), 0);
}

//===----------------------------------------------------------------------===//
// f4E2M1FN (OCP FP4: 1 sign, 2 exponent bits of bias 1, 1 mantissa bit)
//===----------------------------------------------------------------------===//

TEST(F4E2M1FNTest, EveryCodeDecodesToTheOcpValue) {
  // Codes 0..7 are 0, 0.5 (the subnormal), 1, 1.5, 2, 3, 4, 6; bit 3 is the
  // sign; no pattern is NaN or infinite.
  const double magnitudes[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (uint32_t code = 0; code < 16; ++code) {
    double value = decodeCode(ElementType::F4E2M1FN, code);
    EXPECT_EQ(std::fabs(value), magnitudes[code & 7]) << code;
    EXPECT_EQ(std::signbit(value), code >= 8) << code;
    EXPECT_EQ(encodeCode(ElementType::F4E2M1FN, value), code) << code;
  }
  // Bits above the code are ignored.
  EXPECT_EQ(decodeCode(ElementType::F4E2M1FN, 0xF3), 1.5);
}

TEST(F4E2M1FNTest, TiesGoToTheEvenMantissa) {
  auto code = [](double x) { return encodeCode(ElementType::F4E2M1FN, x); };
  EXPECT_EQ(code(0.25), 0x0u);  // 0 | 0.5: 0
  EXPECT_EQ(code(0.75), 0x2u);  // 0.5 | 1: 1
  EXPECT_EQ(code(1.25), 0x2u);  // 1 | 1.5: 1
  EXPECT_EQ(code(1.75), 0x4u);  // 1.5 | 2: 2
  EXPECT_EQ(code(2.5), 0x4u);   // 2 | 3: 2
  EXPECT_EQ(code(3.5), 0x6u);   // 3 | 4: 4
  EXPECT_EQ(code(5.0), 0x6u);   // 4 | 6: 4
  EXPECT_EQ(code(-2.5), 0xCu);
  EXPECT_EQ(code(0.2500001), 0x1u); // past the tie
  EXPECT_EQ(code(4.9999), 0x6u);
  EXPECT_EQ(code(5.0001), 0x7u);
}

TEST(F4E2M1FNTest, SaturatesAndHasNoNaN) {
  auto code = [](double x) { return encodeCode(ElementType::F4E2M1FN, x); };
  EXPECT_EQ(code(7.0), 0x7u);
  EXPECT_EQ(code(1e30), 0x7u);
  EXPECT_EQ(code(-std::numeric_limits<double>::infinity()), 0xFu);
  EXPECT_EQ(code(std::nan("")), 0x0u); // as the integer codes: +0
  EXPECT_EQ(code(-std::nan("")), 0x0u);
  EXPECT_EQ(code(-0.0), 0x8u);  // the sign of zero is kept
  EXPECT_EQ(code(-0.1), 0x8u);
  EXPECT_EQ(roundTo(std::nan(""), ElementType::F4E2M1FN), 0.0);
  EXPECT_EQ(roundTo(2.9, ElementType::F4E2M1FN), 3.0);
  EXPECT_EQ(qmax(ElementType::F4E2M1FN), 6.0);
  EXPECT_EQ(quantizationScale(3.0, ElementType::F4E2M1FN, false), 0.5);
  // 2^ceil(log2(6.5 / 6)) = 2.
  EXPECT_EQ(quantizationScale(6.5, ElementType::F4E2M1FN, true), 2.0);
}

//===----------------------------------------------------------------------===//
// Quantization scales
//===----------------------------------------------------------------------===//

TEST(QuantizationScaleTest, Qmax) {
  EXPECT_EQ(qmax(ElementType::I8), 127);
  EXPECT_EQ(qmax(ElementType::F8E4M3FN), 448);
  EXPECT_EQ(qmax(ElementType::I4), 7);
  EXPECT_EQ(quantizationScale(3.5, ElementType::I4, false), 0.5);
  EXPECT_EQ(quantizationScale(3.5, ElementType::I4, true), 0.5);
  EXPECT_EQ(quantizationScale(3.6, ElementType::I4, true), 1.0);
}

TEST(QuantizationScaleTest, PlainScaleIsRoundedToF32) {
  // absmax / qmax, rounded once to f32: the same as f32 division of these
  // exact f32 operands.
  EXPECT_EQ(quantizationScale(1.0, ElementType::F8E4M3FN, false),
            double(1.0f / 448.0f));
  EXPECT_EQ(quantizationScale(3.0, ElementType::I8, false),
            double(3.0f / 127.0f));
  EXPECT_EQ(quantizationScale(127.0, ElementType::I8, false), 1.0);
}

TEST(QuantizationScaleTest, Pow2Scale) {
  // 1 / 448 = 2^-8.81 -> 2^-8: 2^-8 * 448 = 1.75 >= 1 > 2^-9 * 448 = 0.875.
  EXPECT_EQ(quantizationScale(1.0, ElementType::F8E4M3FN, true), pow2(-8));
  // 1 / 127 = 0.007874 > 2^-7 = 0.0078125 -> 2^-6.
  EXPECT_EQ(quantizationScale(1.0, ElementType::I8, true), pow2(-6));
  // Exact powers of two are kept: 1.75 / 448 = 2^-8, 15.875 / 127 = 2^-3.
  EXPECT_EQ(quantizationScale(1.75, ElementType::F8E4M3FN, true), pow2(-8));
  EXPECT_EQ(quantizationScale(15.875, ElementType::I8, true), pow2(-3));
  EXPECT_EQ(quantizationScale(448, ElementType::F8E4M3FN, true), 1.0);
  // Just above goes to the next power.
  EXPECT_EQ(quantizationScale(1.75 + pow2(-40), ElementType::F8E4M3FN, true),
            pow2(-7));
  // 1e-4 / 448 = 2.23e-7: 2^-23 = 1.19e-7 is too small, 2^-22 = 2.38e-7.
  EXPECT_EQ(quantizationScale(1e-4, ElementType::F8E4M3FN, true), pow2(-22));
  EXPECT_EQ(quantizationScale(0.0, ElementType::F8E4M3FN, true), 0.0);
}

TEST(QuantizationScaleTest, NonFiniteAbsmaxGivesNaN) {
  for (bool pow2Scale : {false, true})
    for (ElementType type : {ElementType::I8, ElementType::F8E4M3FN}) {
      EXPECT_TRUE(std::isnan(quantizationScale(kInf, type, pow2Scale)));
      EXPECT_TRUE(std::isnan(quantizationScale(kNaN, type, pow2Scale)));
    }
  // The smallest min_absmax the verifier accepts gives a normal scale:
  // 448 * 2^-126 / 448 = 2^-126 (FLT_MIN), exactly, with or without pow2.
  EXPECT_EQ(quantizationScale(448 * pow2(-126), ElementType::F8E4M3FN, false),
            pow2(-126));
  EXPECT_EQ(quantizationScale(448 * pow2(-126), ElementType::F8E4M3FN, true),
            pow2(-126));
  EXPECT_EQ(quantizationScale(127 * pow2(-126), ElementType::I8, true),
            pow2(-126));
}

TEST(OverflowLikeF32Test, TheF32RoundingBoundary) {
  // FLT_MAX = 2^128 - 2^104; the midpoint to 2^128 is 2^128 - 2^103, which
  // ties to the even 2^128, i.e. infinity.
  double fltMax = std::ldexp(double(0xFFFFFF), 104);
  double threshold = pow2(128) - pow2(103);
  EXPECT_EQ(overflowLikeF32(fltMax), fltMax);
  EXPECT_EQ(overflowLikeF32(threshold - pow2(80)), threshold - pow2(80));
  EXPECT_EQ(overflowLikeF32(threshold), kInf);
  EXPECT_EQ(overflowLikeF32(-threshold), -kInf);
  EXPECT_EQ(overflowLikeF32(1e300), kInf);
  // The same boundary as rounding itself.
  EXPECT_EQ(roundToF32(threshold), kInf);
  EXPECT_EQ(roundToF32(threshold - pow2(80)), fltMax);
  EXPECT_TRUE(std::isnan(overflowLikeF32(kNaN)));
  EXPECT_EQ(overflowLikeF32(-0.0), 0.0);
  EXPECT_TRUE(std::signbit(overflowLikeF32(-0.0)));
}

} // namespace
