//===- Numerics.cpp - element types, rounding and bit encodings -----------===//
//
// All float formats go through one description (exponent and mantissa widths,
// plus whether the format is "FN": finite-only, saturating). Rounding scales
// |x| so that one unit in the last place of its binade becomes 1, rounds that
// to an integer (ties to even) and scales back; powers of two make both
// scalings exact, so the only rounding is the one we ask for.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Reference/Numerics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace indexpool::ref {
namespace {

struct FloatFormat {
  int exponentBits;
  int mantissaBits; // explicit bits, without the implicit leading one
  // FN formats (f8E4M3FN): no infinities, only the all-ones pattern is NaN,
  // and overflow saturates to the largest finite value.
  bool finiteOnly;
  // Formats without NaN either (f4E2M1FN): every pattern is a number, and
  // a NaN rounds to +0, as for the integer codes.
  bool noNaN = false;

  int bias() const { return (1 << (exponentBits - 1)) - 1; }
  int maxExponentField() const { return (1 << exponentBits) - 1; }
  uint32_t mantissaMask() const { return (1u << mantissaBits) - 1; }
  /// Unbiased exponent of the smallest normal value.
  int minExponent() const { return 1 - bias(); }
  double maxFinite() const {
    // IEEE reserves the all-ones exponent for inf/NaN; FN formats use it for
    // numbers too, except all-ones mantissa (NaN).
    int maxExp = finiteOnly ? maxExponentField() - bias() : bias();
    int lostUlps = finiteOnly && !noNaN ? 2 : 1;
    return std::ldexp((1 << (mantissaBits + 1)) - lostUlps,
                      maxExp - mantissaBits);
  }
};

constexpr FloatFormat kF32{8, 23, false};
constexpr FloatFormat kBF16{8, 7, false};
constexpr FloatFormat kF16{5, 10, false};
constexpr FloatFormat kF8E4M3FN{4, 3, true};
constexpr FloatFormat kF4E2M1FN{2, 1, true, /*noNaN=*/true};

/// Round a finite y >= 0 to an integer, ties to even. Exact: y - floor(y)
/// loses nothing for a double. Independent of the FP environment's mode.
double roundHalfEven(double y) {
  double floorY = std::floor(y);
  double fraction = y - floorY;
  if (fraction > 0.5)
    return floorY + 1;
  if (fraction < 0.5)
    return floorY;
  return std::fmod(floorY, 2.0) == 0 ? floorY : floorY + 1;
}

double roundToFormat(double x, const FloatFormat &format) {
  if (std::isnan(x))
    return format.noNaN ? 0.0 : x;
  double magnitude = std::fabs(x);
  if (std::isinf(magnitude))
    return format.finiteOnly ? std::copysign(format.maxFinite(), x) : x;
  if (magnitude == 0)
    return x;
  int exponent;
  std::frexp(magnitude, &exponent); // magnitude in [2^(exponent-1), 2^exponent)
  // Subnormals share the quantum of the smallest normal binade.
  int ulpExponent =
      std::max(exponent - 1, format.minExponent()) - format.mantissaBits;
  double rounded = std::ldexp(
      roundHalfEven(std::ldexp(magnitude, -ulpExponent)), ulpExponent);
  if (rounded > format.maxFinite())
    rounded = format.finiteOnly ? format.maxFinite()
                                : std::numeric_limits<double>::infinity();
  return std::copysign(rounded, x);
}

uint32_t encodeFormat(double x, const FloatFormat &format) {
  double value = roundToFormat(x, format);
  int mantissaBits = format.mantissaBits;
  uint32_t sign =
      std::signbit(value) ? 1u << (format.exponentBits + mantissaBits) : 0u;
  uint32_t allOnesExponent = uint32_t(format.maxExponentField())
                             << mantissaBits;
  // Every NaN encodes to the format's canonical positive quiet NaN, whatever
  // its sign or payload: a NaN's sign means nothing, and one pattern per
  // format lets a test compare results byte for byte.
  if (std::isnan(value))
    return allOnesExponent | (format.finiteOnly ? format.mantissaMask()
                                                : 1u << (mantissaBits - 1));
  if (std::isinf(value))
    return sign | allOnesExponent;
  double magnitude = std::fabs(value);
  if (magnitude == 0)
    return sign;
  int exponent;
  double fraction = std::frexp(magnitude, &exponent); // in [0.5, 1)
  int unbiased = exponent - 1;
  if (unbiased < format.minExponent()) // subnormal: a multiple of the quantum
    return sign |
           uint32_t(std::ldexp(magnitude, mantissaBits - format.minExponent()));
  uint32_t mantissa = uint32_t(std::ldexp(2 * fraction - 1, mantissaBits));
  return sign | (uint32_t(unbiased + format.bias()) << mantissaBits) | mantissa;
}

double decodeFormat(uint32_t bits, const FloatFormat &format) {
  int mantissaBits = format.mantissaBits;
  uint32_t mantissa = bits & format.mantissaMask();
  int exponentField = int(bits >> mantissaBits) & format.maxExponentField();
  bool negative = (bits >> (format.exponentBits + mantissaBits)) & 1;
  double magnitude;
  if (exponentField == format.maxExponentField() && !format.noNaN &&
      (!format.finiteOnly || mantissa == format.mantissaMask()))
    magnitude = mantissa == 0 && !format.finiteOnly
                    ? std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::quiet_NaN();
  else if (exponentField == 0)
    magnitude = std::ldexp(mantissa, format.minExponent() - mantissaBits);
  else
    magnitude = std::ldexp((1u << mantissaBits) | mantissa,
                           exponentField - format.bias() - mantissaBits);
  return negative ? -magnitude : magnitude;
}

double roundToInteger(double x, double lo, double hi) {
  if (std::isnan(x))
    return 0;
  double clamped = std::clamp(x, lo, hi);
  // "+ 0.0" turns -0 into +0: integers have no negative zero.
  return std::copysign(roundHalfEven(std::fabs(clamped)), clamped) + 0.0;
}

} // namespace

uint32_t encodeCode(ElementType type, double value) {
  switch (type) {
  case ElementType::F8E4M3FN:
    return encodeF8E4M3FN(value);
  case ElementType::I8:
    return uint8_t(int8_t(roundToI8(value)));
  case ElementType::I4:
    return uint32_t(int(roundToI4(value))) & 0xF;
  case ElementType::F4E2M1FN:
    return encodeFormat(value, kF4E2M1FN);
  default:
    assert(false && "the bits of a type that holds no codes");
    return 0;
  }
}

double decodeCode(ElementType type, uint32_t bits) {
  switch (type) {
  case ElementType::F8E4M3FN:
    return decodeF8E4M3FN(uint8_t(bits));
  case ElementType::I8:
    return double(int8_t(uint8_t(bits)));
  case ElementType::I4: // sign-extend the nibble
    return double(int8_t(uint8_t(bits << 4)) >> 4);
  case ElementType::F4E2M1FN:
    return decodeFormat(bits & 0xF, kF4E2M1FN);
  default:
    assert(false && "the value of a type that holds no codes");
    return 0;
  }
}

double roundToF32(double x) { return roundToFormat(x, kF32); }
double roundToBF16(double x) { return roundToFormat(x, kBF16); }
double roundToF16(double x) { return roundToFormat(x, kF16); }
double roundToF8E4M3FN(double x) { return roundToFormat(x, kF8E4M3FN); }
double roundToI8(double x) { return roundToInteger(x, -128, 127); }
double roundToI4(double x) { return roundToInteger(x, -8, 7); }
double roundToI32(double x) {
  return roundToInteger(x, std::numeric_limits<int32_t>::min(),
                        std::numeric_limits<int32_t>::max());
}

double roundToI64(double x) {
  // The int64 range as doubles: -2^63 and the largest double below 2^63.
  return roundToInteger(x, double(std::numeric_limits<int64_t>::min()),
                        0x1p63 - 1024);
}

double roundTo(double x, ElementType type) {
  switch (type) {
  case ElementType::F32:
    return roundToF32(x);
  case ElementType::F16:
    return roundToF16(x);
  case ElementType::BF16:
    return roundToBF16(x);
  case ElementType::F8E4M3FN:
    return roundToF8E4M3FN(x);
  case ElementType::I8:
    return roundToI8(x);
  case ElementType::I32:
    return roundToI32(x);
  case ElementType::I64:
    return roundToI64(x);
  case ElementType::I4:
    return roundToI4(x);
  case ElementType::F4E2M1FN:
    return roundToFormat(x, kF4E2M1FN);
  }
  return x;
}

uint16_t encodeBF16(double x) { return uint16_t(encodeFormat(x, kBF16)); }
double decodeBF16(uint16_t bits) { return decodeFormat(bits, kBF16); }
uint16_t encodeF16(double x) { return uint16_t(encodeFormat(x, kF16)); }
double decodeF16(uint16_t bits) { return decodeFormat(bits, kF16); }
uint8_t encodeF8E4M3FN(double x) { return uint8_t(encodeFormat(x, kF8E4M3FN)); }
double decodeF8E4M3FN(uint8_t bits) { return decodeFormat(bits, kF8E4M3FN); }

double quantizationScale(double absmax, ElementType quantizedType,
                         bool pow2Scale) {
  double limit = qmax(quantizedType);
  assert(limit > 0 && "the scale of a type that holds no codes");
  // A row holding NaN or an infinity has no scale that could represent it:
  // NaN, so that its codes and everything computed from them are NaN.
  if (!std::isfinite(absmax))
    return std::numeric_limits<double>::quiet_NaN();
  // 0 is its own 2^ceil(log2(.)).
  if (!pow2Scale || !(absmax > 0))
    return roundToF32(absmax / limit);
  // With absmax = a * 2^ea and qmax = b * 2^eb (a, b in [0.5, 1)), the least
  // e with qmax * 2^e >= absmax is ea - eb, plus one when a > b. Exact, where
  // log2 of the rounded quotient could land on the wrong side of a power of 2.
  int absmaxExponent, limitExponent;
  double absmaxFraction = std::frexp(absmax, &absmaxExponent);
  double limitFraction = std::frexp(limit, &limitExponent);
  int exponent =
      absmaxExponent - limitExponent + (absmaxFraction > limitFraction ? 1 : 0);
  return roundToF32(std::ldexp(1.0, exponent));
}

double overflowLikeF32(double x) {
  // 2^128 - 2^103 is the midpoint between FLT_MAX = 2^128 - 2^104 and 2^128:
  // from there on, round to nearest even gives infinity.
  constexpr double kF32OverflowThreshold = 0x1.ffffffp127;
  if (std::fabs(x) >= kF32OverflowThreshold)
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  return x;
}

} // namespace indexpool::ref
