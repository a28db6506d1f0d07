//===- ManifestReader.cpp - a manifest's JSON primitives and top level ----===//
//
// The Reader's primitives (objects, members, integers, strings, sizes), each
// failing with the one line, and the top level that reads the parts in
// order (ManifestReader.h says which file reads which part).
//
//===----------------------------------------------------------------------===//

#include "ManifestReader.h"
#include "indexpool/Target/Chips.h"

#include "indexpool/Runtime/Printable.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace indexpool::runtime::detail {

std::string listOf(const std::vector<const char *> &names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i)
      text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

bool contains(const std::vector<const char *> &names, std::string_view name) {
  return std::any_of(names.begin(), names.end(),
                     [&](const char *n) { return name == n; });
}

std::string describeValue(const json::Value &v) {
  switch (v.kind) {
  case json::Kind::Number: {
    if (v.isInteger)
      return std::to_string(v.integer);
    // The shortest of %.15g and %.17g that reads back as the same double.
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.15g", v.number);
    if (std::strtod(buffer, nullptr) != v.number)
      std::snprintf(buffer, sizeof(buffer), "%.17g", v.number);
    return buffer;
  }
  case json::Kind::String: {
    return "\"" + printable(v.string, '"', 40) + "\"";
  }
  case json::Kind::Bool:
    return v.boolean ? "true" : "false";
  default:
    return json::kindName(v.kind);
  }
}

/// Whether `chip` is spelled as a chip (target::parseChipName, the one
/// grammar); a runtime compares it with the device's capability.
static bool isChipName(const std::string &chip) {
  int major, minor;
  bool archSpecific;
  return ::indexpool::target::parseChipName(chip, major, minor, archSpecific);
}

//===----------------------------------------------------------------------===//
// JSON primitives
//===----------------------------------------------------------------------===//

bool Reader::checkObject(const json::Value &object, const std::string &field,
                         const std::vector<const char *> &allowed) {
  if (!object.isObject())
    return fail(object, field,
                "expected an object, got " + describeValue(object));
  for (size_t i = 0; i < object.keys.size(); ++i)
    if (!contains(allowed, object.keys[i]))
      return fail(object.elements[i],
                  (field.empty() ? "" : field + ".") +
                      printable(object.keys[i]),
                  "unknown field (expected " + listOf(allowed) + ")");
  return true;
}

const json::Value *Reader::member(const json::Value &object,
                                  const std::string &field, const char *key,
                                  bool required) {
  const json::Value *v = object.find(key);
  if (!v && required)
    fail(object, field, std::string("missing field \"") + key + "\"");
  return v;
}

bool Reader::checkArray(const json::Value &v, const std::string &field) {
  if (!v.isArray())
    return fail(v, field, "expected an array, got " + describeValue(v));
  return true;
}

const json::Value *Reader::arrayMember(const json::Value &object,
                                       const std::string &field,
                                       const char *key) {
  const json::Value *v = member(object, field, key);
  return v && checkArray(*v, sub(field, key)) ? v : nullptr;
}

bool Reader::integer(const json::Value &v, const std::string &field,
                     int64_t lo, int64_t hi, int64_t &value) {
  if (!v.isNumber() || !v.isInteger || v.integer < lo || v.integer > hi)
    return fail(v, field,
                "expected an integer in [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "], got " + describeValue(v));
  value = v.integer;
  return true;
}

bool Reader::string(const json::Value &v, const std::string &field,
                    std::string &value) {
  if (!v.isString() || v.string.empty())
    return fail(v, field,
                "expected a non-empty string, got " + describeValue(v));
  value = v.string;
  return true;
}

bool Reader::sizeOperand(const json::Value &v, const std::string &field,
                         int64_t lo, int64_t hi, int64_t sizeLo, int64_t before,
                         int64_t placeholder, SizeOperand &operand,
                         int64_t &value) {
  if (!v.isObject()) {
    if (!integer(v, field, lo, hi, value))
      return false;
    operand = SizeOperand::literal(value);
    return true;
  }
  if (!checkObject(v, field, {"size"}))
    return false;
  const json::Value *index = member(v, field, "size");
  if (!index)
    return false;
  std::string iField = sub(field, "size");
  if (!index->isNumber() || !index->isInteger || index->integer < 0)
    return fail(*index, iField,
                "expected the index of a size (0, 1, ...), got " +
                    describeValue(*index));
  if (index->integer >= before) {
    if (readingSize >= 0)
      return fail(*index, iField,
                  "sizes[" + std::to_string(readingSize) +
                      "] may only use earlier sizes, got " +
                      std::to_string(index->integer));
    return fail(*index, iField,
                "no size " + std::to_string(index->integer) +
                    " (the manifest " +
                    (before ? "has " + std::to_string(before) + " size" +
                                  (before == 1 ? "" : "s")
                            : std::string("has no \"sizes\"")) +
                    ")");
  }
  operand = SizeOperand::ofSize(index->integer);
  if (!values) {
    value = placeholder;
    return true;
  }
  value = operand.value = (*values)[size_t(index->integer)];
  if (value < sizeLo || value > hi)
    return fail(v, field,
                "sizes[" + std::to_string(index->integer) + "] is " +
                    std::to_string(value) + ", not in [" +
                    std::to_string(sizeLo) + ", " + std::to_string(hi) + "]");
  return true;
}

//===----------------------------------------------------------------------===//
// The top level
//===----------------------------------------------------------------------===//

bool Reader::read(const json::Value &root) {
  if (!checkObject(root, "",
                   {"format_version", "chip", "function", "binary", "sizes",
                    "buffers", "values", "kernels", "launches", "computes"}))
    return false;
  // The version first: a newer format gets one clear message.
  const json::Value *version = member(root, "", "format_version");
  if (!version)
    return false;
  if (!version->isNumber() || !version->isInteger)
    return fail(*version, "format_version",
                "expected an integer, got " + describeValue(*version));
  if (version->integer < kOldestManifestFormatVersion ||
      version->integer > kManifestFormatVersion)
    return fail(*version, "format_version",
                "unsupported format_version " +
                    std::to_string(version->integer) + " (this runtime reads " +
                    std::to_string(kOldestManifestFormatVersion) + " and " +
                    std::to_string(kManifestFormatVersion) +
                    (version->integer < kOldestManifestFormatVersion
                         ? "; older manifests have no kernel signatures: "
                           "recompile with indexpool-compile"
                         : "") +
                    ")");
  out.formatVersion = version->integer;

  const json::Value *chip = member(root, "", "chip");
  if (!chip || !string(*chip, "chip", out.chip))
    return false;
  if (!isChipName(out.chip))
    return fail(*chip, "chip",
                "expected a chip such as sm_80, sm_90 or sm_90a, got " +
                    describeValue(*chip));
  const json::Value *function = member(root, "", "function");
  if (!function || !string(*function, "function", out.function))
    return false;
  const json::Value *binary = member(root, "", "binary");
  if (!binary || !readBinary(*binary))
    return false;
  if (const json::Value *sizes = member(root, "", "sizes", false)) {
    if (out.formatVersion < 3)
      return fail(*sizes, "sizes",
                  "format_version " + std::to_string(out.formatVersion) +
                      " has no sizes (they are new in format_version 3)");
    if (!readSizes(*sizes))
      return false;
  }
  const json::Value *buffers = member(root, "", "buffers");
  if (!buffers || !readBuffers(*buffers) || !checkSizesAgainstInputs(root))
    return false;
  if (const json::Value *values = member(root, "", "values", false))
    if (!readValues(*values))
      return false;
  if (const json::Value *kernels = member(root, "", "kernels", false))
    if (!readKernels(*kernels))
      return false;
  const json::Value *launches = member(root, "", "launches");
  if (!launches || !readLaunches(*launches))
    return false;
  if (const json::Value *computes = member(root, "", "computes", false))
    if (!readComputes(*computes))
      return false;
  return checkDefinitions(root);
}

bool Reader::readBinary(const json::Value &v) {
  if (!checkObject(v, "binary", {"path", "format"}))
    return false;
  const json::Value *path = member(v, "binary", "path");
  if (!path || !string(*path, "binary.path", out.binaryPath))
    return false;
  const json::Value *format = member(v, "binary", "format");
  if (!format)
    return false;
  if (format->isString() && format->string == "cubin")
    out.binaryFormat = BinaryFormat::Cubin;
  else if (format->isString() && format->string == "ptx")
    out.binaryFormat = BinaryFormat::Ptx;
  else
    return fail(*format, "binary.format",
                "expected \"cubin\" or \"ptx\", got " + describeValue(*format));
  return true;
}

} // namespace indexpool::runtime::detail
