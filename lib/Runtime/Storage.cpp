//===- Storage.cpp - host tensors <-> the bytes kernels read --------------===//

#include "indexpool/Runtime/Storage.h"

#include "indexpool/Reference/Numerics.h"

#include <cstdint>
#include <cstring>

using namespace indexpool;
using ref::ElementType;
using ref::HostTensor;

template <typename T> static void put(char *out, T value) {
  std::memcpy(out, &value, sizeof(T));
}

template <typename T> static T get(const char *in) {
  T value;
  std::memcpy(&value, in, sizeof(T));
  return value;
}

void runtime::storeTensor(const HostTensor &t, char *out) {
  size_t width = size_t(ref::elementTypeBytes(t.type));
  for (size_t i = 0; i < t.data.size(); ++i, out += width) {
    double value = t.data[i];
    switch (t.type) {
    case ElementType::F32:
      put(out, float(value));
      break;
    case ElementType::F16:
      put(out, ref::encodeF16(value));
      break;
    case ElementType::BF16:
      put(out, ref::encodeBF16(value));
      break;
    case ElementType::F8E4M3FN:
      put(out, ref::encodeF8E4M3FN(value));
      break;
    case ElementType::I8:
      put(out, int8_t(ref::roundToI8(value)));
      break;
    case ElementType::I32:
      put(out, int32_t(ref::roundToI32(value)));
      break;
    case ElementType::I64:
      put(out, int64_t(ref::roundToI64(value)));
      break;
    default: // codes below a byte (ElementTypes.def): one a byte, their bits
      put(out, uint8_t(ref::encodeCode(t.type, value)));
      break;
    }
  }
}

std::vector<char> runtime::packTensor(const HostTensor &t) {
  std::vector<char> bytes(t.data.size() * size_t(ref::elementTypeBytes(t.type)));
  storeTensor(t, bytes.data());
  return bytes;
}

double runtime::loadElement(const char *in, ElementType type) {
  switch (type) {
  case ElementType::F32:
    return double(get<float>(in));
  case ElementType::F16:
    return ref::decodeF16(get<uint16_t>(in));
  case ElementType::BF16:
    return ref::decodeBF16(get<uint16_t>(in));
  case ElementType::F8E4M3FN:
    return ref::decodeF8E4M3FN(get<uint8_t>(in));
  case ElementType::I8:
    return double(get<int8_t>(in));
  case ElementType::I32:
    return double(get<int32_t>(in));
  case ElementType::I64:
    return double(get<int64_t>(in));
  default: // codes below a byte: one a byte, their bits
    return ref::decodeCode(type, get<uint8_t>(in));
  }
}

HostTensor runtime::unpackTensor(const char *bytes, ElementType type,
                                 const std::vector<int64_t> &shape) {
  HostTensor t = HostTensor::zeros(type, shape);
  size_t width = size_t(ref::elementTypeBytes(type));
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = loadElement(bytes + i * width, type);
  return t;
}

std::string runtime::expectedNpyDtypes(const std::string &dtype,
                                       ElementType type) {
  switch (type) {
  case ElementType::F32:
  case ElementType::F16:
  case ElementType::BF16:
  case ElementType::F8E4M3FN:
    return dtype == "<f4" || dtype == "<f2" ? "" : "float32 or float16";
  case ElementType::I8:
    return dtype == "|i1" ? "" : "int8";
  case ElementType::I32:
    return dtype == "<i4" ? "" : "int32";
  case ElementType::I64:
    return dtype == "<i8" ? "" : "int64";
  default: // codes below a byte, one a byte
    return dtype == "|i1" || dtype == "|u1" ? "" : "int8 or uint8";
  }
}
