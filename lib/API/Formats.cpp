//===- Formats.cpp - storage-format conversions through the reference -----===//

#include "indexpool/API/Formats.h"

#include "indexpool/Reference/Numerics.h"

using namespace indexpool;

float indexpool::decodeF8E4M3FN(uint8_t code) {
  return float(ref::decodeF8E4M3FN(code));
}
float indexpool::decodeBF16(uint16_t bits) { return float(ref::decodeBF16(bits)); }
float indexpool::decodeF16(uint16_t bits) { return float(ref::decodeF16(bits)); }
uint8_t indexpool::encodeF8E4M3FN(float value) {
  return ref::encodeF8E4M3FN(value);
}
uint16_t indexpool::encodeBF16(float value) { return ref::encodeBF16(value); }
uint16_t indexpool::encodeF16(float value) { return ref::encodeF16(value); }
