//===- Npy.cpp - NumPy .npy files and their host tensors ------------------===//
//
// The format (numpy.lib.format): the magic "\x93NUMPY", a major and minor
// version byte, the header length (uint16 in 1.0, uint32 in 2.0 and 3.0),
// then a Python dict literal with 'descr', 'fortran_order' and 'shape',
// padded with spaces and a newline so the data starts 64-byte aligned.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Npy.h"
#include "indexpool/Runtime/Printable.h"

#include "indexpool/Runtime/FileRead.h"

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

// Elements are copied with memcpy, in the host's byte order.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "Npy.cpp assumes a little-endian host"
#endif

namespace indexpool::runtime {
namespace {

using ref::ElementType;
using ref::HostTensor;

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;
constexpr size_t kAlignment = 64;

template <typename T> double loadAs(const char *source) {
  T value;
  std::memcpy(&value, source, sizeof(T));
  return double(value);
}

double loadF16(const char *source) {
  uint16_t bits;
  std::memcpy(&bits, source, sizeof(bits));
  return ref::decodeF16(bits);
}

struct DtypeInfo {
  const char *name; // canonical spelling
  bool isFloat;
  int64_t itemSize;
  double (*load)(const char *source);
};

constexpr DtypeInfo kDtypes[] = {
    {"<f2", true, 2, loadF16},          {"<f4", true, 4, loadAs<float>},
    {"<f8", true, 8, loadAs<double>},   {"|i1", false, 1, loadAs<int8_t>},
    {"|u1", false, 1, loadAs<uint8_t>}, {"<i4", false, 4, loadAs<int32_t>},
    {"<i8", false, 8, loadAs<int64_t>},
};

const DtypeInfo *findDtype(std::string_view dtype) {
  // A one-byte type has no byte order; NumPy writes '|', accept '<' too.
  if (dtype == "<i1" || dtype == "<u1")
    dtype = dtype == "<i1" ? "|i1" : "|u1";
  for (const DtypeInfo &info : kDtypes)
    if (dtype == info.name)
      return &info;
  return nullptr;
}

std::string unsupportedDtype(std::string_view dtype) {
  std::string message =
      "unsupported dtype '" + printable(dtype, '\'') + "' (supported:";
  for (const DtypeInfo &info : kDtypes)
    message += std::string(" ") + info.name;
  return message + ")";
}

/// Element count of `shape` times `itemSize`, or -1 when that overflows.
/// A zero size makes 0 whatever the other sizes are, so the answer does not
/// depend on the itemSize or on the order of the sizes.
int64_t byteCount(const std::vector<int64_t> &shape, int64_t itemSize) {
  int64_t elements = ref::numElements(shape);
  if (elements < 0 || (elements != 0 &&
                       itemSize > std::numeric_limits<int64_t>::max() / elements))
    return -1;
  return elements * itemSize;
}

std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

/// A recursive-descent reader of the header dict, which is all NumPy ever
/// writes there: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text(text) {}

  /// Fills the three fields or returns why the header is malformed.
  std::string parse(std::string &dtype, bool &fortranOrder,
                    std::vector<int64_t> &shape) {
    bool seenDescr = false, seenFortran = false, seenShape = false;
    if (!consume('{'))
      return "expected '{'";
    while (!consume('}')) {
      std::string key;
      if (!parseString(key) || !consume(':'))
        return "expected 'key':";
      if (key == "descr" && parseString(dtype))
        seenDescr = true;
      else if (key == "fortran_order" && parseBool(fortranOrder))
        seenFortran = true;
      else if (key == "shape" && parseShape(shape))
        seenShape = true;
      else
        return "bad or unknown entry '" + printable(key, '\'') + "'";
      if (!consume(',') && !peek('}'))
        return "expected ',' or '}' after '" + printable(key, '\'') + "'";
    }
    skipSpace();
    if (pos != text.size())
      return "unexpected text after '}'";
    if (!seenDescr || !seenFortran || !seenShape)
      return "'descr', 'fortran_order' and 'shape' are required";
    return "";
  }

private:
  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\t'))
      ++pos;
  }
  bool peek(char c) {
    skipSpace();
    return pos < text.size() && text[pos] == c;
  }
  bool consume(char c) {
    if (!peek(c))
      return false;
    ++pos;
    return true;
  }
  bool consumeWord(std::string_view word) {
    skipSpace();
    if (text.substr(pos, word.size()) != word)
      return false;
    pos += word.size();
    return true;
  }
  bool parseString(std::string &out) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    size_t end = text.find(text[pos], pos + 1);
    if (end == std::string_view::npos)
      return false;
    out = std::string(text.substr(pos + 1, end - pos - 1));
    pos = end + 1;
    return true;
  }
  bool parseBool(bool &out) {
    out = consumeWord("True");
    return out || consumeWord("False");
  }
  bool parseSize(int64_t &out) {
    skipSpace();
    size_t start = pos;
    out = 0;
    for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
      int digit = text[pos] - '0';
      if (out > (std::numeric_limits<int64_t>::max() - digit) / 10)
        return false;
      out = out * 10 + digit;
    }
    return pos > start;
  }
  /// "()", "(5,)" or "(2, 3)"; a trailing comma is allowed.
  bool parseShape(std::vector<int64_t> &out) {
    out.clear();
    if (!consume('('))
      return false;
    while (!consume(')')) {
      int64_t size;
      if (!parseSize(size))
        return false;
      out.push_back(size);
      if (!consume(',') && !peek(')'))
        return false;
    }
    return true;
  }

  std::string_view text;
  size_t pos = 0;
};

uint32_t readLittleEndian(std::string_view data, size_t offset, size_t bytes) {
  uint32_t value = 0;
  for (size_t i = 0; i < bytes; ++i)
    value |= uint32_t(uint8_t(data[offset + i])) << (8 * i);
  return value;
}

/// Reads a .npy file from `file` piece by piece -- prefix, header, then
/// exactly the data the header declares -- so that an endless stream stops
/// at the first byte that cannot belong to the file, and nothing larger
/// than kMaxNpyBytes is ever read. Errors without the path, except read
/// errors (which have it).
std::string readNpyFrom(InputFile &file, NpyArray &out, bool &hasPath) {
  std::string error;
  auto readError = [&]() {
    hasPath = true;
    return error;
  };
  if (file.isRegular() && file.sizeInBytes() > kMaxNpyBytes) {
    file.tooLarge(kMaxNpyBytes, "a .npy file (at most 2^30 elements)", error);
    return readError();
  }
  std::vector<char> prefix;
  if (!file.read(int64_t(kMagicSize + 2), prefix, error))
    return readError();
  std::string_view data(prefix.data(), prefix.size());
  if (data.substr(0, kMagicSize) != kMagic || data.size() < kMagicSize + 2)
    return "not a .npy file (bad magic)";
  int major = uint8_t(data[kMagicSize]), minor = uint8_t(data[kMagicSize + 1]);
  if (major < 1 || major > 3)
    return "unsupported .npy version " + std::to_string(major) + "." +
           std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)";
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t headerStart = kMagicSize + 2 + lengthBytes;
  if (!file.read(int64_t(lengthBytes), prefix, error))
    return readError();
  if (prefix.size() < headerStart)
    return "truncated header";
  data = std::string_view(prefix.data(), prefix.size());
  size_t headerLength = readLittleEndian(data, kMagicSize + 2, lengthBytes);
  if (int64_t(headerLength) > kMaxNpyHeaderBytes)
    return "the header declares " + std::to_string(headerLength) +
           " bytes, more than the limit of " +
           std::to_string(kMaxNpyHeaderBytes);
  std::string header;
  int64_t got = 0;
  if (!file.read(int64_t(headerLength), header, error, &got))
    return readError();
  if (size_t(got) < headerLength)
    return "truncated header: it declares " + std::to_string(headerLength) +
           " bytes, the file has " + std::to_string(got);
  NpyArray array;
  bool fortranOrder = false;
  std::string why =
      HeaderParser(header).parse(array.dtype, fortranOrder, array.shape);
  if (!why.empty())
    return "malformed header: " + why;
  if (fortranOrder)
    return "Fortran-order arrays are not supported (save a C-order array)";
  const DtypeInfo *info = findDtype(array.dtype);
  if (!info)
    return unsupportedDtype(array.dtype);
  array.dtype = info->name;
  int64_t elements = byteCount(array.shape, 1);
  if (elements < 0 || elements > kMaxHostElements)
    return "shape " + ref::shapeString(array.shape) +
           " has more than 2^30 elements (the limit of host tensors)";
  int64_t expected = elements * info->itemSize;
  size_t dataStart = headerStart + headerLength;
  // A regular file knows its size: say how much data it has either way.
  int64_t available = file.isRegular()
                          ? file.sizeInBytes() - int64_t(dataStart)
                          : -1;
  auto mismatch = [&](bool truncated, int64_t has) {
    return std::string(truncated ? "truncated" : "trailing") +
           " data: shape " + ref::shapeString(array.shape) + " of " +
           array.dtype + " needs " + std::to_string(expected) +
           " bytes, the file has " +
           (has >= 0 ? std::to_string(has) : "more");
  };
  if (available >= 0 && available != expected)
    return mismatch(available < expected, available);
  if (available >= 0)
    array.bytes.reserve(size_t(expected));
  if (!file.read(expected, array.bytes, error, &got))
    return readError();
  if (got < expected)
    return mismatch(true, got);
  std::vector<char> extra;
  if (!file.read(1, extra, error, &got))
    return readError();
  if (got)
    return mismatch(false, available);
  out = std::move(array);
  return "";
}

/// The header dict, padded so that the data starts aligned.
std::string makeHeader(const NpyArray &array, size_t prefixSize) {
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(array.shape[i]);
  shape += array.shape.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + array.dtype +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t unpadded = prefixSize + header.size() + 1; // + '\n'
  header.append((kAlignment - unpadded % kAlignment) % kAlignment, ' ');
  return header + "\n";
}

/// fwrite, except that an empty buffer (whose data() may be null) is fine.
bool writeAll(std::FILE *file, const char *data, size_t size) {
  return size == 0 || std::fwrite(data, 1, size, file) == size;
}

template <typename T> void appendElement(std::vector<char> &bytes, T value) {
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  bytes.insert(bytes.end(), raw, raw + sizeof(T));
}

} // namespace

int64_t npyItemSize(std::string_view dtype) {
  const DtypeInfo *info = findDtype(dtype);
  return info ? info->itemSize : 0;
}

bool readNpy(const std::string &path, NpyArray &out, std::string &error) {
  InputFile file;
  if (!file.openOrExplain(path, error))
    return false;
  bool hasPath = false;
  std::string why = readNpyFrom(file, out, hasPath);
  if (!why.empty()) {
    error = hasPath ? why : file.path() + ": " + why;
    return false;
  }
  return true;
}

bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error) {
  const DtypeInfo *info = findDtype(array.dtype);
  if (!info) {
    error = path + ": " + unsupportedDtype(array.dtype);
    return false;
  }
  int64_t expected = byteCount(array.shape, info->itemSize);
  if (expected < 0 || array.bytes.size() != size_t(expected)) {
    error = path + ": " + std::to_string(array.bytes.size()) +
            " bytes do not make shape " + ref::shapeString(array.shape) +
            " of " + info->name;
    return false;
  }
  NpyArray canonical{info->name, array.shape, {}};
  std::string header = makeHeader(canonical, kMagicSize + 2 + 2);
  int major = 1;
  if (header.size() > std::numeric_limits<uint16_t>::max()) {
    major = 2;
    header = makeHeader(canonical, kMagicSize + 2 + 4);
  }
  std::string prefix(kMagic, kMagicSize);
  prefix += char(major);
  prefix += char(0);
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
    prefix += char((header.size() >> (8 * i)) & 0xFF);

  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) {
    error = path + ": cannot create: " + std::strerror(errno);
    return false;
  }
  bool ok = writeAll(file, prefix.data(), prefix.size()) &&
            writeAll(file, header.data(), header.size()) &&
            writeAll(file, array.bytes.data(), array.bytes.size());
  ok = std::fclose(file) == 0 && ok;
  if (!ok)
    error = path + ": write error";
  return ok;
}

bool npyToHostTensor(const NpyArray &array, ElementType type, HostTensor &out,
                     std::string &error) {
  const DtypeInfo *info = findDtype(array.dtype);
  if (!info) {
    error = unsupportedDtype(array.dtype);
    return false;
  }
  int64_t expected = byteCount(array.shape, info->itemSize);
  if (expected < 0 || array.bytes.size() != size_t(expected)) {
    error = std::to_string(array.bytes.size()) + " bytes do not make shape " +
            ref::shapeString(array.shape) + " of " + info->name;
    return false;
  }
  if (info->isFloat != ref::isFloatType(type)) {
    error = std::string("a ") + info->name + " array cannot be a " +
            ref::elementTypeName(type) + " tensor: expected " +
            (info->isFloat ? "an integer" : "a float") + " array";
    return false;
  }
  out = HostTensor::zeros(type, array.shape);
  for (size_t i = 0; i < out.data.size(); ++i) {
    double value = info->load(array.bytes.data() + i * size_t(info->itemSize));
    double converted = ref::roundTo(value, type);
    // Floats round to nearest even; integers must fit exactly.
    if (!info->isFloat && converted != value) {
      error = "element " + std::to_string(i) + " = " + formatNumber(value) +
              " is out of range for " + ref::elementTypeName(type);
      return false;
    }
    out.data[i] = converted;
  }
  return true;
}

NpyArray hostTensorToNpy(const HostTensor &tensor) {
  NpyArray array{"<f4", tensor.shape, {}};
  if (tensor.type == ElementType::I8)
    array.dtype = "|i1";
  else if (tensor.type == ElementType::I32)
    array.dtype = "<i4";
  else if (tensor.type == ElementType::I64)
    array.dtype = "<i8";
  array.bytes.reserve(tensor.data.size() * size_t(npyItemSize(array.dtype)));
  // Rounding first keeps the casts exact (and defined) even for a value the
  // tensor's type cannot hold.
  for (double value : tensor.data) {
    if (tensor.type == ElementType::I8)
      appendElement(array.bytes, int8_t(ref::roundToI8(value)));
    else if (tensor.type == ElementType::I32)
      appendElement(array.bytes, int32_t(ref::roundToI32(value)));
    else if (tensor.type == ElementType::I64)
      appendElement(array.bytes, int64_t(ref::roundToI64(value)));
    else
      appendElement(array.bytes, float(ref::roundToF32(value)));
  }
  return array;
}

} // namespace indexpool::runtime
