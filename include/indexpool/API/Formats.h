//===- Formats.h - the storage formats NumPy and C++ lack -------*- C++ -*-===//
//
// Conversions between float and the 16- and 8-bit formats of TensorRef's
// storage (Tensor.h), the same as the compiled code and the float64
// reference use (in libIndexPool).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_API_FORMATS_H
#define INDEXPOOL_API_FORMATS_H

#include <cstdint>

namespace indexpool {

float decodeF8E4M3FN(uint8_t code);
float decodeBF16(uint16_t bits);
float decodeF16(uint16_t bits);
/// Round to nearest even; f8E4M3FN saturates to +-448 (infinities too), the
/// IEEE formats overflow to infinity; every NaN becomes the canonical one.
uint8_t encodeF8E4M3FN(float value);
uint16_t encodeBF16(float value);
uint16_t encodeF16(float value);

} // namespace indexpool

#endif // INDEXPOOL_API_FORMATS_H
