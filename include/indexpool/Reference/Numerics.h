//===- Numerics.h - element types, rounding and bit encodings ---*- C++ -*-===//
//
// The number formats of docs/IndexPoolOps.md as seen from float64: every narrow value is
// held as the double it denotes, and each roundTo* below rounds a double to
// the nearest value of the format (ties to even) in ONE step, so no result is
// double-rounded through f32. Plain C++17, no LLVM/MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_REFERENCE_NUMERICS_H
#define INDEXPOOL_REFERENCE_NUMERICS_H

#include "indexpool/Vocabulary/ElementTypes.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace indexpool::ref {

/// The element types of the indexpool ops: ElementTypes.def's rows. I64
/// (slots of the paged layout) holds integers exactly up to 2^53, far
/// beyond any slot or length. I4 is a code type of the paged layout only
/// (codes two a byte in the pages); a host tensor of I4 codes holds them one
/// a double like any other.
using ElementType = ::indexpool::ElementType;
using ::indexpool::elementTypeName;
using ::indexpool::parseElementType;

/// Storage size of one element in bytes (the table's bits / 8; 1 for
/// codes packed below a byte, as a host tensor holds them one each).
inline int64_t elementTypeBytes(ElementType type) {
  int bits = elementTypeInfo(type).bits;
  return bits < 8 ? 1 : bits / 8;
}
/// True for the table's Float rows.
inline bool isFloatType(ElementType type) {
  return elementTypeInfo(type).isFloat();
}

// Round-to-nearest-even from a double. NaN stays NaN and the sign of zero is
// kept. The IEEE formats (f32, bf16, f16) overflow to +-inf; f8E4M3FN has no
// infinities and saturates to +-448 instead, infinities included (what PTX
// cvt.rn.satfinite does).
double roundToF32(double x);
double roundToBF16(double x);
double roundToF16(double x);
double roundToF8E4M3FN(double x);
// Integers: round half to even, saturate to the type's range, NaN -> 0.
double roundToI8(double x);
double roundToI4(double x);
double roundToI32(double x);
double roundToI64(double x);
/// Dispatches to the roundTo* of `type`.
double roundTo(double x, ElementType type);

// Bit patterns. Encoders round first (as roundTo*); every NaN, whatever its
// sign, encodes as the canonical positive quiet NaN (bf16 0x7FC0, f16
// 0x7E00, f8 0x7F), as the compiled kernels store it (docs/robustness.md).
uint16_t encodeBF16(double x);
double decodeBF16(uint16_t bits);
uint16_t encodeF16(double x);
double decodeF16(uint16_t bits);
uint8_t encodeF8E4M3FN(double x);
double decodeF8E4M3FN(uint8_t bits);

/// A code type's bit pattern (the low `bits` bits of ElementTypes.def's
/// row, as a page stores it) of a value the type holds: i8 and i4 two's
/// complement, f8E4M3FN its encoding. decodeCode is the inverse (the bits
/// above the type's are ignored). Only code types (qmax > 0).
uint32_t encodeCode(ElementType type, double value);
double decodeCode(ElementType type, uint32_t bits);

/// The constants of the quantized formats, named once for every layer (the
/// reference, the CPU and GPU code generators, the verifier's messages).
/// f8E4M3FN: largest finite 448, smallest normal 2^-6, smallest subnormal
/// 2^-9, NaN codes 0x7F / 0xFF, no infinities.
constexpr double kF8E4M3FNMax = 448.0;
constexpr double kF8E4M3FNMinNormal = 0x1p-6;
constexpr double kF8E4M3FNMinSubnormal = 0x1p-9;
constexpr uint8_t kF8E4M3FNNaN = 0x7F;
/// The largest code magnitudes of the code types (ElementTypes.def's Qmax
/// column, named here for the code generators' constants).
constexpr double kI8Max = elementTypeInfo(ElementType::I8).qmax;
constexpr double kI4Max = elementTypeInfo(ElementType::I4).qmax;
static_assert(kF8E4M3FNMax == elementTypeInfo(ElementType::F8E4M3FN).qmax);

/// The largest quantized magnitude of a code type (the table's Qmax).
inline double qmax(ElementType quantizedType) {
  return elementTypeInfo(quantizedType).qmax;
}

/// The f32 scale of indexpool.quantize for a row whose absmax (already
/// max'ed with min_absmax) is `absmax`: absmax / qmax, or with `pow2Scale`
/// 2^ceil(log2(absmax / qmax)), computed exactly, then rounded to f32. NaN
/// when absmax is NaN or infinite (the row's codes are then all NaN codes).
double quantizationScale(double absmax, ElementType quantizedType,
                         bool pow2Scale);

/// x, or +-inf where f32 arithmetic would have overflowed: |x| at or beyond
/// 2^128 - 2^103, which rounds past FLT_MAX. The reference computes in
/// double; applied after each operation the kernels do in f32, it makes an
/// overflowing intermediate infinite there too (inf - inf then gives NaN).
double overflowLikeF32(double x);

} // namespace indexpool::ref

#endif // INDEXPOOL_REFERENCE_NUMERICS_H
