//===- Manifest.cpp - what indexpool-compile emits next to kernels --------===//
//
// Reading is validation: every field is checked where it is read, and the
// first problem ends the load with one line that names the file, the place
// (line:column of the offending value) and the field, e.g.
// "buffers[2].shape[1]". The computes are then run shapes-only through the
// same code that runs them on data (ReferenceRun.cpp), so a manifest that
// loads can be run by the reference.
//
// A manifest with sizes is read twice by the same Reader: when loaded,
// without the sizes' values (the checks that need them wait), and by
// bindSizes, with them, which makes every check and every message the same
// as for a manifest written with those integers.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/Printable.h"

#include "indexpool/Dialect/OpContract.h"
#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/Json.h"
#include "indexpool/Runtime/ReferenceRun.h"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

namespace indexpool::runtime {

using ref::ElementType;
using ref::HostTensor;

//===----------------------------------------------------------------------===//
// The format's vocabulary
//===----------------------------------------------------------------------===//

const char *bufferRoleName(BufferRole role) {
  switch (role) {
  case BufferRole::Input:
    return "input";
  case BufferRole::Output:
    return "output";
  case BufferRole::Temporary:
    return "temporary";
  case BufferRole::Intermediate:
    return "intermediate";
  }
  return "?";
}

namespace {

using mlir::indexpool::OpContract;
using mlir::indexpool::PropertyKind;

/// The names of `entries` (operands, results or properties of a contract).
template <typename T>
std::vector<const char *> namesOf(const std::vector<T> &entries) {
  std::vector<const char *> names;
  for (const T &entry : entries)
    names.push_back(entry.name);
  return names;
}

/// The ops of manifests (every op of the contract), which an unknown op's
/// message lists.
std::vector<const char *> manifestOpNames() {
  std::vector<const char *> names;
  for (const OpContract &op : mlir::indexpool::opContracts())
    names.push_back(op.name);
  return names;
}

/// "a, b or c".
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

/// A short description of a JSON value for "got ..." in messages.
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

/// Why a kernel parameter cannot name `buffer`, which has no device memory.
std::string noDeviceMemory(const Buffer &buffer) {
  if (buffer.inPlaceOf >= 0)
    return "buffer " + std::to_string(buffer.id) + " is in place of input " +
           std::to_string(buffer.inPlaceOf) +
           " (it has no device memory of its own: name buffer " +
           std::to_string(buffer.inPlaceOf) + ")";
  return "buffer " + std::to_string(buffer.id) +
         " is an intermediate (it has no device memory)";
}

/// Whether `chip` looks like "sm_90" or "sm_90a".
bool isChipName(const std::string &chip) {
  if (chip.size() < 4 || chip.compare(0, 3, "sm_") != 0)
    return false;
  size_t i = 3;
  while (i < chip.size() && chip[i] >= '0' && chip[i] <= '9')
    ++i;
  if (i == 3)
    return false;
  if (i + 1 == chip.size() && chip[i] >= 'a' && chip[i] <= 'z')
    ++i;
  return i == chip.size();
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

class Reader {
public:
  /// `values`: the sizes' values when binding; null when loading.
  Reader(const std::string &name, Manifest &out, std::string &error,
         const std::vector<int64_t> *values = nullptr)
      : name(name), out(out), error(error), values(values) {}

  bool read(const json::Value &root);

private:
  bool fail(const json::Value &at, const std::string &field,
            const std::string &what) {
    error = name + ":" + at.location() + ": " +
            (field.empty() ? "" : field + ": ") + what;
    return false;
  }

  /// `object` (named `field`) is an object whose keys are all `allowed`.
  bool checkObject(const json::Value &object, const std::string &field,
                   const std::vector<const char *> &allowed) {
    if (!object.isObject())
      return fail(object, field,
                  "expected an object, got " + describeValue(object));
    for (size_t i = 0; i < object.keys.size(); ++i)
      if (!contains(allowed, object.keys[i]))
        return fail(object.elements[i],
                    (field.empty() ? "" : field + ".") + printable(object.keys[i]),
                    "unknown field (expected " + listOf(allowed) + ")");
    return true;
  }

  /// Member `key` of `object`; fails (and returns nullptr) when a required
  /// one is missing.
  const json::Value *member(const json::Value &object, const std::string &field,
                            const char *key, bool required = true) {
    const json::Value *v = object.find(key);
    if (!v && required)
      fail(object, field, std::string("missing field \"") + key + "\"");
    return v;
  }

  /// `v` (named `field`) is an array.
  bool checkArray(const json::Value &v, const std::string &field) {
    if (!v.isArray())
      return fail(v, field, "expected an array, got " + describeValue(v));
    return true;
  }

  /// Required member `key` of `object`, an array; nullptr (after failing)
  /// when it is missing or not an array.
  const json::Value *arrayMember(const json::Value &object,
                                 const std::string &field, const char *key) {
    const json::Value *v = member(object, field, key);
    return v && checkArray(*v, sub(field, key)) ? v : nullptr;
  }

  static std::string sub(const std::string &field, const char *key) {
    return field.empty() ? key : field + "." + key;
  }
  static std::string at(const std::string &field, size_t i) {
    return field + "[" + std::to_string(i) + "]";
  }

  bool integer(const json::Value &v, const std::string &field, int64_t lo,
               int64_t hi, int64_t &value) {
    if (!v.isNumber() || !v.isInteger || v.integer < lo || v.integer > hi)
      return fail(v, field,
                  "expected an integer in [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "], got " + describeValue(v));
    value = v.integer;
    return true;
  }

  bool string(const json::Value &v, const std::string &field,
              std::string &value) {
    if (!v.isString() || v.string.empty())
      return fail(v, field,
                  "expected a non-empty string, got " + describeValue(v));
    value = v.string;
    return true;
  }

  /// Whether the sizes' values are unknown (loading a manifest with sizes):
  /// the checks that need them are left to bindSizes.
  bool symbolic() const { return !out.sizes.empty() && !values; }

  /// A size operand: an integer in [lo, hi], or {"size": i} with i below
  /// `before` (the number of sizes; an entry's own index within `sizes`)
  /// whose value, when known, is in [sizeLo, hi]. `value` is the integer or
  /// the size's value (`placeholder` before binding).
  bool sizeOperand(const json::Value &v, const std::string &field, int64_t lo,
                   int64_t hi, int64_t sizeLo, int64_t before,
                   int64_t placeholder, SizeOperand &operand, int64_t &value);
  bool readSizes(const json::Value &v);
  bool checkSizesAgainstInputs(const json::Value &root);
  bool readBinary(const json::Value &v);
  bool readBuffers(const json::Value &v);
  /// Each `in_place_of` names an input of the output's type and shape, at
  /// most one output per input.
  bool checkInPlace(const json::Value &v);
  /// `inferred`: a null size is allowed (a value's size its compute gives,
  /// kInferredSize until then).
  bool readShape(const json::Value &shape, const std::string &field,
                 std::vector<int64_t> &sizes, std::vector<SizeOperand> &dims,
                 bool inferred = false);
  bool readValues(const json::Value &v);
  bool readKernels(const json::Value &v);
  bool readLaunches(const json::Value &v);
  bool readLaunch(const json::Value &v, const std::string &field,
                  Launch &launch);
  bool readComputes(const json::Value &v);
  bool readCompute(const json::Value &v, const std::string &field,
                   Compute &compute);
  bool readProperties(const json::Value *v, const json::Value &computeValue,
                      const std::string &field, const OpContract &op,
                      Compute &compute);
  bool checkDefinitions(const json::Value &root);

  const std::string &name;
  Manifest &out;
  std::string &error;
  const std::vector<int64_t> *values;
  /// While reading sizes[i]: i (its operands may only name earlier sizes).
  int64_t readingSize = -1;
  /// For messages: where each buffer was declared (position in "buffers").
  std::map<int64_t, size_t> bufferPositions;
  /// Intermediates declared in "values" only (position there).
  std::map<int64_t, size_t> valuePositions;
  /// Ids that have a value so far (inputs, then compute results), with the
  /// compute that defined them (-1 for inputs).
  std::map<int64_t, int64_t> defined;
};

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

bool Reader::readSizes(const json::Value &v) {
  if (!checkArray(v, "sizes"))
    return false;
  for (size_t i = 0; i < v.elements.size(); ++i) {
    const json::Value &entry = v.elements[i];
    std::string field = at("sizes", i);
    if (!checkObject(entry, field, {"op", "buffer", "dim", "args"}))
      return false;
    const json::Value *opValue = member(entry, field, "op");
    if (!opValue)
      return false;
    SizeExpr size;
    if (!opValue->isString() || !parseSizeOp(opValue->string, size.op))
      return fail(*opValue, sub(field, "op"),
                  "unknown size op " + describeValue(*opValue) + " (expected " +
                      sizeOpNames() + ")");
    std::string op = sizeOpName(size.op);
    switch (size.op) {
    case SizeExpr::Op::Dim: {
      // Which input and dimension: checked once the buffers are read.
      const json::Value *buffer, *dim;
      if (!checkObject(entry, field, {"op", "buffer", "dim"}) ||
          !(buffer = member(entry, field, "buffer")) ||
          !integer(*buffer, sub(field, "buffer"), 0,
                   std::numeric_limits<int64_t>::max(), size.buffer) ||
          !(dim = member(entry, field, "dim")) ||
          !integer(*dim, sub(field, "dim"), 0,
                   std::numeric_limits<int32_t>::max(), size.dim))
        return false;
      break;
    }
    case SizeExpr::Op::SmCount:
      if (!checkObject(entry, field, {"op"}))
        return false;
      break;
    default: {
      if (!checkObject(entry, field, {"op", "args"}))
        return false;
      const json::Value *args = arrayMember(entry, field, "args");
      if (!args)
        return false;
      std::string aField = sub(field, "args");
      if (args->elements.size() != 2)
        return fail(*args, aField,
                    op + " takes 2 operands [A, B], got " +
                        std::to_string(args->elements.size()));
      readingSize = int64_t(i);
      for (size_t k = 0; k < 2; ++k) {
        int64_t value;
        if (!sizeOperand(args->elements[k], at(aField, k), 0, kMaxSizeValue,
                         0, int64_t(i), 0, size.args[k], value))
          return false;
      }
      readingSize = -1;
    }
    }
    out.sizes.push_back(size);
  }
  return true;
}

bool Reader::checkSizesAgainstInputs(const json::Value &root) {
  if (out.sizes.empty())
    return true;
  const json::Value &sizes = *root.find("sizes");
  for (size_t i = 0; i < out.sizes.size(); ++i) {
    SizeExpr &size = out.sizes[i];
    if (size.op != SizeExpr::Op::Dim)
      continue;
    std::string field = at("sizes", i);
    const json::Value &entry = sizes.elements[i];
    const Buffer *b = out.findBuffer(size.buffer);
    if (!b || b->role != BufferRole::Input)
      return fail(*entry.find("buffer"), sub(field, "buffer"),
                  b ? "buffer " + std::to_string(size.buffer) + " is " +
                          (b->role == BufferRole::Output ? "an " : "a ") +
                          bufferRoleName(b->role) +
                          " (dim names a dimension of an input)"
                    : "no input buffer has id " + std::to_string(size.buffer));
    if (size.dim >= int64_t(b->shape.size()))
      return fail(*entry.find("dim"), sub(field, "dim"),
                  "input buffer " + std::to_string(size.buffer) + " has " +
                      std::to_string(b->shape.size()) + " dimension" +
                      (b->shape.size() == 1 ? "" : "s"));
    size.input = b->index;
  }
  // An input's sizes are its own dimensions: what the caller passes.
  const json::Value &buffers = *root.find("buffers");
  for (size_t i = 0; i < out.buffers.size(); ++i) {
    const Buffer &b = out.buffers[i];
    if (b.role != BufferRole::Input)
      continue;
    for (size_t d = 0; d < b.dims.size(); ++d) {
      const SizeOperand &operand = b.dims[d];
      if (!operand.isSize())
        continue;
      const SizeExpr &size = out.sizes[size_t(operand.size)];
      if (size.op != SizeExpr::Op::Dim || size.buffer != b.id ||
          size.dim != int64_t(d))
        return fail(buffers.elements[i].find("shape")->elements[d],
                    at(at("buffers", i) + ".shape", d),
                    "an input's size must be its own dimension: sizes[" +
                        std::to_string(operand.size) +
                        "] is not {\"op\": \"dim\", \"buffer\": " +
                        std::to_string(b.id) + ", \"dim\": " +
                        std::to_string(d) + "}");
    }
  }
  return true;
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

bool Reader::readBuffers(const json::Value &v) {
  if (!checkArray(v, "buffers"))
    return false;
  for (size_t i = 0; i < v.elements.size(); ++i) {
    const json::Value &b = v.elements[i];
    std::string field = at("buffers", i);
    if (!checkObject(b, field,
                     {"id", "role", "index", "type", "shape", "in_place_of"}))
      return false;
    Buffer buffer;
    const json::Value *id = member(b, field, "id");
    if (!id ||
        !integer(*id, sub(field, "id"), 0,
                 std::numeric_limits<int64_t>::max(), buffer.id))
      return false;
    if (auto it = bufferPositions.find(buffer.id); it != bufferPositions.end())
      return fail(*id, sub(field, "id"),
                  "id " + std::to_string(buffer.id) +
                      " is declared twice (also buffers[" +
                      std::to_string(it->second) + "])");
    const json::Value *role = member(b, field, "role");
    if (!role)
      return false;
    static const std::vector<const char *> roles = {
        "input", "output", "temporary", "intermediate"};
    if (!role->isString() || !contains(roles, role->string))
      return fail(*role, sub(field, "role"),
                  "expected " + listOf(roles) + ", got " +
                      describeValue(*role));
    for (BufferRole r : {BufferRole::Input, BufferRole::Output,
                         BufferRole::Temporary, BufferRole::Intermediate})
      if (role->string == bufferRoleName(r))
        buffer.role = r;
    bool indexed =
        buffer.role == BufferRole::Input || buffer.role == BufferRole::Output;
    const json::Value *index = member(b, field, "index", indexed);
    if (indexed && !index)
      return false;
    if (!indexed && index)
      return fail(*index, sub(field, "index"),
                  "only input and output buffers have an index");
    if (index && !integer(*index, sub(field, "index"), 0,
                          std::numeric_limits<int32_t>::max(), buffer.index))
      return false;
    const json::Value *type = member(b, field, "type");
    if (!type)
      return false;
    std::optional<ElementType> element =
        type->isString() ? ref::parseElementType(type->string) : std::nullopt;
    if (!element)
      return fail(*type, sub(field, "type"),
                  "unknown element type " + describeValue(*type) +
                      " (expected f32, f16, bf16, f8E4M3FN, i8, i32 or i64)");
    buffer.type = *element;
    const json::Value *shape = member(b, field, "shape");
    if (!shape ||
        !readShape(*shape, sub(field, "shape"), buffer.shape, buffer.dims))
      return false;
    // Which input it names is checked once every buffer is read.
    if (const json::Value *inPlace = member(b, field, "in_place_of", false)) {
      if (buffer.role != BufferRole::Output)
        return fail(*inPlace, sub(field, "in_place_of"),
                    std::string("only an output can be in place of an input, "
                                "buffer ") +
                        std::to_string(buffer.id) + " is " +
                        (buffer.role == BufferRole::Input ? "an " : "a ") +
                        bufferRoleName(buffer.role));
      if (!integer(*inPlace, sub(field, "in_place_of"), 0,
                   std::numeric_limits<int64_t>::max(), buffer.inPlaceOf))
        return false;
    }
    bufferPositions[buffer.id] = i;
    out.buffers.push_back(std::move(buffer));
  }

  // Input and output indices are 0..N-1, each once.
  for (BufferRole role : {BufferRole::Input, BufferRole::Output}) {
    std::map<int64_t, size_t> byIndex;
    for (size_t i = 0; i < out.buffers.size(); ++i) {
      const Buffer &b = out.buffers[i];
      if (b.role != role)
        continue;
      auto [it, inserted] = byIndex.emplace(b.index, i);
      if (!inserted)
        return fail(*v.elements[i].find("index"), at("buffers", i) + ".index",
                    std::string(bufferRoleName(role)) + " index " +
                        std::to_string(b.index) +
                        " is used twice (also buffers[" +
                        std::to_string(it->second) + "])");
    }
    int64_t expected = 0;
    for (auto [index, position] : byIndex) {
      if (index != expected)
        return fail(*v.elements[position].find("index"),
                    at("buffers", position) + ".index",
                    std::string("the ") + bufferRoleName(role) +
                        "s' indices must be 0.." +
                        std::to_string(byIndex.size() - 1) +
                        " (one each), got " + std::to_string(index));
      ++expected;
    }
  }
  for (const Buffer &b : out.buffers)
    if (b.role == BufferRole::Input)
      defined[b.id] = -1;
  return checkInPlace(v);
}

bool Reader::checkInPlace(const json::Value &v) {
  // Input id -> the position of the output in its place.
  std::map<int64_t, size_t> taken;
  for (size_t i = 0; i < out.buffers.size(); ++i) {
    const Buffer &b = out.buffers[i];
    if (b.inPlaceOf < 0)
      continue;
    const json::Value &where = *v.elements[i].find("in_place_of");
    std::string field = at("buffers", i) + ".in_place_of";
    const Buffer *input = out.findBuffer(b.inPlaceOf);
    if (!input)
      return fail(where, field,
                  "no input buffer has id " + std::to_string(b.inPlaceOf));
    if (input->role != BufferRole::Input)
      return fail(where, field,
                  "buffer " + std::to_string(input->id) + " is " +
                      (input->role == BufferRole::Output ? "an " : "a ") +
                      bufferRoleName(input->role) + ", not an input");
    if (auto [it, inserted] = taken.emplace(input->id, i); !inserted)
      return fail(where, field,
                  "input buffer " + std::to_string(input->id) +
                      " is already updated in place by buffers[" +
                      std::to_string(it->second) + "] (one output per input)");
    // Before binding, sizes may still turn out equal: only what differs
    // for every binding is an error now (bindSizes compares the integers).
    bool same = input->type == b.type && input->shape.size() == b.shape.size();
    for (size_t d = 0; same && d < b.shape.size(); ++d) {
      if (!symbolic())
        same = input->shape[d] == b.shape[d];
      else if (!b.dims[d].isSize() && !input->dims[d].isSize())
        same = input->dims[d].value == b.dims[d].value;
    }
    if (!same) {
      auto typeOf = [&](const Buffer &buffer) {
        return symbolic() ? std::string(ref::elementTypeName(buffer.type)) +
                                " " + symbolicShapeString(buffer)
                          : tensorTypeString(buffer.shape, buffer.type);
      };
      return fail(where, field,
                  "output buffer " + std::to_string(b.id) + " is " + typeOf(b) +
                      ", but input buffer " + std::to_string(input->id) +
                      " is " + typeOf(*input) +
                      " (in place needs the same type and shape)");
    }
  }
  return true;
}

bool Reader::readValues(const json::Value &v) {
  if (!checkArray(v, "values"))
    return false;
  std::map<int64_t, size_t> seen;
  for (size_t i = 0; i < v.elements.size(); ++i) {
    const json::Value &entry = v.elements[i];
    std::string field = at("values", i);
    if (!checkObject(entry, field, {"id", "type", "shape"}))
      return false;
    int64_t id;
    const json::Value *idValue = member(entry, field, "id");
    if (!idValue || !integer(*idValue, sub(field, "id"), 0,
                             std::numeric_limits<int64_t>::max(), id))
      return false;
    if (auto [it, inserted] = seen.emplace(id, i); !inserted)
      return fail(*idValue, sub(field, "id"),
                  "id " + std::to_string(id) +
                      " is listed twice (also values[" +
                      std::to_string(it->second) + "])");
    const json::Value *type = member(entry, field, "type");
    const json::Value *shape = member(entry, field, "shape");
    if (!type || !shape)
      return false;
    std::optional<ElementType> element =
        type->isString() ? ref::parseElementType(type->string) : std::nullopt;
    if (!element)
      return fail(*type, sub(field, "type"),
                  "unknown element type " + describeValue(*type) +
                      " (expected f32, f16, bf16, f8E4M3FN, i8, i32 or i64)");
    std::vector<int64_t> sizes;
    std::vector<SizeOperand> dims;
    if (!readShape(*shape, sub(field, "shape"), sizes, dims,
                   /*inferred=*/true))
      return false;
    if (const Buffer *b = out.findBuffer(id)) {
      // A buffer: the two descriptions must agree (once sizes have values;
      // a null size agrees with any).
      auto agrees = [&] {
        if (b->shape.size() != sizes.size())
          return false;
        for (size_t d = 0; d < sizes.size(); ++d)
          if (sizes[d] != kInferredSize && sizes[d] != b->shape[d])
            return false;
        return true;
      };
      if (b->type != *element || (!symbolic() && !agrees()))
        return fail(entry, field,
                    "id " + std::to_string(id) + " is " +
                        tensorTypeString(sizes, *element) + ", but buffers[" +
                        std::to_string(bufferPositions[id]) + "] is " +
                        tensorTypeString(b->shape, b->type));
      continue;
    }
    // Only in "values": an intermediate of the reference computation.
    Buffer buffer;
    buffer.id = id;
    buffer.role = BufferRole::Intermediate;
    buffer.type = *element;
    buffer.shape = std::move(sizes);
    buffer.dims = std::move(dims);
    out.buffers.push_back(std::move(buffer));
    valuePositions[id] = i;
  }
  return true;
}

bool Reader::readShape(const json::Value &shape, const std::string &field,
                       std::vector<int64_t> &sizes,
                       std::vector<SizeOperand> &dims, bool inferred) {
  if (!shape.isArray())
    return fail(shape, field,
                "expected an array of sizes, got " + describeValue(shape));
  bool anyInferred = false;
  for (size_t d = 0; d < shape.elements.size(); ++d) {
    int64_t size;
    SizeOperand operand;
    if (inferred && shape.elements[d].isNull()) {
      sizes.push_back(kInferredSize);
      dims.push_back(SizeOperand::literal(kInferredSize));
      anyInferred = true;
      continue;
    }
    if (!sizeOperand(shape.elements[d], at(field, d), 0, kMaxBufferElements, 0,
                     int64_t(out.sizes.size()), 0, operand, size))
      return false;
    sizes.push_back(size);
    dims.push_back(operand);
  }
  if (anyInferred)
    return true; // counted once the compute gives the sizes
  // The total, not a running product: a zero size anywhere makes 0.
  int64_t elements = ref::numElements(sizes);
  if (elements < 0 || elements > kMaxBufferElements)
    return fail(shape, field, "more than 2^40 elements");
  return true;
}

/// "buffer", "i32", "i64", "f32" -> the kind; false for anything else.
static bool parseParamKind(const std::string &name, LaunchParam::Kind &kind) {
  for (LaunchParam::Kind k : {LaunchParam::Kind::Buffer, LaunchParam::Kind::I32,
                              LaunchParam::Kind::I64, LaunchParam::Kind::F32})
    if (name == paramKindName(k)) {
      kind = k;
      return true;
    }
  return false;
}

bool Reader::readKernels(const json::Value &v) {
  if (!checkArray(v, "kernels"))
    return false;
  for (size_t i = 0; i < v.elements.size(); ++i) {
    const json::Value &k = v.elements[i];
    std::string field = at("kernels", i);
    if (!checkObject(k, field, {"name", "params"}))
      return false;
    Kernel kernel;
    const json::Value *name = member(k, field, "name");
    if (!name || !string(*name, sub(field, "name"), kernel.name))
      return false;
    if (out.findKernel(kernel.name))
      return fail(*name, sub(field, "name"),
                  "kernel '" + printable(kernel.name, '\'') + "' is declared twice");
    const json::Value *params = arrayMember(k, field, "params");
    if (!params)
      return false;
    std::string pField = sub(field, "params");
    for (size_t j = 0; j < params->elements.size(); ++j) {
      const json::Value &p = params->elements[j];
      std::string paramField = at(pField, j);
      if (!checkObject(p, paramField, {"kind", "bytes", "align"}))
        return false;
      KernelParam param;
      const json::Value *kind = member(p, paramField, "kind");
      if (!kind)
        return false;
      if (!kind->isString() || !parseParamKind(kind->string, param.kind))
        return fail(*kind, sub(paramField, "kind"),
                    "expected \"buffer\", \"i32\", \"i64\" or \"f32\", got " +
                        describeValue(*kind));
      if (const json::Value *bytes = member(p, paramField, "bytes", false)) {
        if (param.kind != LaunchParam::Kind::Buffer)
          return fail(*bytes, sub(paramField, "bytes"),
                      "only buffer parameters have a size");
        // At most the largest buffer: 2^40 elements of 4 bytes.
        if (!sizeOperand(*bytes, sub(paramField, "bytes"), 0,
                         kMaxBufferElements * 4, 0, int64_t(out.sizes.size()),
                         -1, param.bytesOperand, param.bytes))
          return false;
      }
      if (const json::Value *align = member(p, paramField, "align", false)) {
        if (param.kind != LaunchParam::Kind::Buffer)
          return fail(*align, sub(paramField, "align"),
                      "only buffer parameters have an alignment");
        if (!integer(*align, sub(paramField, "align"), 1, 256, param.align))
          return false;
        if (param.align & (param.align - 1))
          return fail(*align, sub(paramField, "align"),
                      "expected a power of two, got " +
                          std::to_string(param.align));
      }
      kernel.params.push_back(param);
    }
    out.kernels.push_back(std::move(kernel));
  }
  return true;
}

bool Reader::readLaunches(const json::Value &v) {
  if (!checkArray(v, "launches"))
    return false;
  for (size_t i = 0; i < v.elements.size(); ++i) {
    Launch launch;
    std::string field = at("launches", i);
    if (!readLaunch(v.elements[i], field, launch))
      return false;
    // An empty op (a size of 0 in its grid) computes nothing, and CUDA
    // rejects the launch: it is left out.
    if (std::count(launch.grid.begin(), launch.grid.end(), 0u)) {
      ++out.skippedLaunches;
      continue;
    }
    // The signature: a launch that passes fewer or other parameters than
    // the kernel takes would have the driver read past them.
    int64_t param = -1;
    std::string why = checkLaunchParams(out, launch, param);
    if (!why.empty()) {
      const json::Value &launchValue = v.elements[i];
      const json::Value *params = launchValue.find("params");
      if (param >= 0)
        return fail(params->elements[size_t(param)],
                    at(sub(field, "params"), size_t(param)), why);
      if (!out.findKernel(launch.kernel))
        return fail(*launchValue.find("kernel"), sub(field, "kernel"), why);
      return fail(*params, sub(field, "params"), why);
    }
    out.launches.push_back(std::move(launch));
  }
  return true;
}

bool Reader::readLaunch(const json::Value &v, const std::string &field,
                        Launch &launch) {
  if (!checkObject(v, field,
                   {"kernel", "grid", "block", "shared_memory_bytes",
                    "params"}))
    return false;
  const json::Value *kernel = member(v, field, "kernel");
  if (!kernel || !string(*kernel, sub(field, "kernel"), launch.kernel))
    return false;
  // kMaxGridDims, kMaxBlockDims: the limits of every supported chip.
  struct Dims {
    const char *key;
    std::array<uint32_t, 3> *value;
    std::array<int64_t, 3> max;
  };
  for (Dims dims : {Dims{"grid", &launch.grid, kMaxGridDims},
                    Dims{"block", &launch.block, kMaxBlockDims}}) {
    bool grid = dims.value == &launch.grid;
    const json::Value *d = member(v, field, dims.key);
    if (!d)
      return false;
    std::string dField = sub(field, dims.key);
    if (!d->isArray() || d->elements.size() != 3)
      return fail(*d, dField,
                  "expected an array of 3 sizes [x, y, z], got " +
                      (d->isArray() ? std::to_string(d->elements.size()) +
                                          " elements"
                                    : describeValue(*d)));
    for (size_t j = 0; j < 3; ++j) {
      int64_t size;
      // The grid may be a size: 0 (an empty op) skips the launch, and the
      // value stands at 1 until the size is bound.
      if (grid ? !sizeOperand(d->elements[j], at(dField, j), 1, dims.max[j], 0,
                              int64_t(out.sizes.size()), 1,
                              launch.gridOperands[j], size)
               : !integer(d->elements[j], at(dField, j), 1, dims.max[j], size))
        return false;
      (*dims.value)[j] = uint32_t(size);
    }
  }
  int64_t threads =
      int64_t(launch.block[0]) * launch.block[1] * launch.block[2];
  if (threads > kMaxThreadsPerBlock)
    return fail(*v.find("block"), sub(field, "block"),
                std::to_string(threads) + " threads per block, more than the " +
                    std::to_string(kMaxThreadsPerBlock) + " of every chip");
  if (const json::Value *shared =
          member(v, field, "shared_memory_bytes", false)) {
    int64_t bytes;
    if (!integer(*shared, sub(field, "shared_memory_bytes"), 0,
                 std::numeric_limits<int32_t>::max(), bytes))
      return false;
    launch.sharedMemoryBytes = uint32_t(bytes);
  }
  const json::Value *params = arrayMember(v, field, "params");
  if (!params)
    return false;
  std::string pField = sub(field, "params");
  for (size_t j = 0; j < params->elements.size(); ++j) {
    const json::Value &p = params->elements[j];
    std::string paramField = at(pField, j);
    if (!checkObject(p, paramField, {"buffer", "i32", "i64", "f32"}))
      return false;
    if (p.keys.size() != 1)
      return fail(p, paramField,
                  "expected exactly one of \"buffer\", \"i32\", \"i64\" or "
                  "\"f32\", got " +
                      std::to_string(p.keys.size()));
    const std::string &kind = p.keys[0];
    const json::Value &value = p.elements[0];
    std::string vField = paramField + "." + kind;
    LaunchParam param;
    if (kind == "buffer") {
      param.kind = LaunchParam::Kind::Buffer;
      if (!integer(value, vField, 0, std::numeric_limits<int64_t>::max(),
                   param.buffer))
        return false;
      const Buffer *b = out.findBuffer(param.buffer);
      if (!b)
        return fail(value, vField,
                    "no buffer has id " + std::to_string(param.buffer));
      if (!b->hasDeviceMemory())
        return fail(value, vField, noDeviceMemory(*b));
    } else if (kind == "i32") {
      param.kind = LaunchParam::Kind::I32;
      if (!sizeOperand(value, vField, std::numeric_limits<int32_t>::min(),
                       std::numeric_limits<int32_t>::max(), 0,
                       int64_t(out.sizes.size()), 0, param.operand,
                       param.integer))
        return false;
    } else if (kind == "i64") {
      param.kind = LaunchParam::Kind::I64;
      if (!sizeOperand(value, vField, std::numeric_limits<int64_t>::min(),
                       std::numeric_limits<int64_t>::max(), 0,
                       int64_t(out.sizes.size()), 0, param.operand,
                       param.integer))
        return false;
    } else {
      param.kind = LaunchParam::Kind::F32;
      if (!value.isNumber() || std::fabs(value.number) > double(FLT_MAX))
        return fail(value, vField,
                    "expected a number in the f32 range, got " +
                        describeValue(value));
      param.f32 = float(value.number);
    }
    launch.params.push_back(param);
  }
  return true;
}

bool Reader::readComputes(const json::Value &v) {
  if (!checkArray(v, "computes"))
    return false;
  for (size_t i = 0; i < v.elements.size(); ++i) {
    Compute compute;
    if (!readCompute(v.elements[i], at("computes", i), compute))
      return false;
    for (int64_t id : compute.results)
      defined[id] = int64_t(i);
    out.computes.push_back(std::move(compute));
  }
  return true;
}

bool Reader::readCompute(const json::Value &v, const std::string &field,
                         Compute &compute) {
  if (!checkObject(v, field, {"op", "operands", "results", "properties"}))
    return false;
  const json::Value *opValue = member(v, field, "op");
  if (!opValue)
    return false;
  const OpContract *op = opValue->isString()
                             ? mlir::indexpool::findOpContract(opValue->string)
                             : nullptr;
  if (!op)
    return fail(*opValue, sub(field, "op"),
                "unknown op " + describeValue(*opValue) + " (expected " +
                    listOf(manifestOpNames()) + ")");
  compute.op = op->name;
  std::string named = field + " (" + compute.op + ")";

  // Operands: an object from operand name to id.
  const json::Value *operands = member(v, named, "operands");
  if (!operands)
    return false;
  std::string oField = sub(field, "operands");
  if (!checkObject(*operands, oField, namesOf(op->operands)))
    return false;
  for (const auto &operand : op->operands) {
    const char *operandName = operand.name;
    const json::Value *idValue = operands->find(operandName);
    if (!idValue) {
      if (!operand.optional)
        return fail(*operands, oField,
                    std::string("missing operand \"") + operandName + "\" of " +
                        compute.op);
      continue;
    }
    std::string idField = sub(oField, operandName);
    int64_t id;
    if (!integer(*idValue, idField, 0, std::numeric_limits<int64_t>::max(),
                 id))
      return false;
    if (!out.findBuffer(id))
      return fail(*idValue, idField, "no buffer has id " + std::to_string(id));
    if (!defined.count(id))
      return fail(*idValue, idField,
                  "buffer " + std::to_string(id) +
                      " has no value yet (neither an input nor the result "
                      "of an earlier compute)");
    compute.operands.emplace_back(operandName, id);
  }

  // Results: ids in the op's result order.
  const json::Value *results = member(v, named, "results");
  if (!results)
    return false;
  std::string rField = sub(field, "results");
  if (!results->isArray() || results->elements.size() != op->results.size())
    return fail(*results, rField,
                compute.op + " has " + std::to_string(op->results.size()) +
                    " result" + (op->results.size() == 1 ? "" : "s") + " (" +
                    listOf(namesOf(op->results)) + "), got " +
                    (results->isArray()
                         ? std::to_string(results->elements.size())
                         : describeValue(*results)));
  for (size_t j = 0; j < results->elements.size(); ++j) {
    const json::Value &idValue = results->elements[j];
    std::string idField = at(rField, j);
    int64_t id;
    if (!integer(idValue, idField, 0, std::numeric_limits<int64_t>::max(), id))
      return false;
    const Buffer *b = out.findBuffer(id);
    if (!b)
      return fail(idValue, idField, "no buffer has id " + std::to_string(id));
    if (b->role == BufferRole::Input)
      return fail(idValue, idField,
                  "buffer " + std::to_string(id) +
                      " is an input (a compute cannot define it)");
    if (auto it = defined.find(id); it != defined.end())
      return fail(idValue, idField,
                  "buffer " + std::to_string(id) +
                      " is already the result of computes[" +
                      std::to_string(it->second) + "]");
    if (std::count(compute.results.begin(), compute.results.end(), id))
      return fail(idValue, idField,
                  "buffer " + std::to_string(id) + " is listed twice");
    compute.results.push_back(id);
  }

  if (!readProperties(member(v, named, "properties", false), v,
                      sub(field, "properties"), *op, compute))
    return false;
  if (symbolic())
    return true; // shapes need the sizes' values: bindSizes checks them

  // Shapes and types: what the reference computes from the operands must be
  // what the result buffers declare.
  std::vector<HostTensor> shapes;
  std::vector<const HostTensor *> operandShapes;
  shapes.reserve(compute.operands.size());
  for (auto &[operandName, id] : compute.operands) {
    const Buffer *b = out.findBuffer(id);
    shapes.push_back(HostTensor{b->type, b->shape, {}});
  }
  for (const HostTensor &t : shapes)
    operandShapes.push_back(&t);
  std::vector<ElementType> resultTypes;
  for (int64_t id : compute.results)
    resultTypes.push_back(out.findBuffer(id)->type);
  std::vector<HostTensor> inferred;
  std::string why;
  if (!evaluateCompute(compute, operandShapes, resultTypes,
                       /*shapesOnly=*/true, inferred, why))
    return fail(v, named, why);
  for (size_t j = 0; j < inferred.size(); ++j) {
    Buffer *b = nullptr;
    for (Buffer &candidate : out.buffers)
      if (candidate.id == compute.results[j])
        b = &candidate;
    // An intermediate's null sizes are what its compute gives.
    if (b->role == BufferRole::Intermediate &&
        b->shape.size() == inferred[j].shape.size())
      for (size_t d = 0; d < b->shape.size(); ++d)
        if (b->shape[d] == kInferredSize)
          b->shape[d] = inferred[j].shape[d];
    if (b->shape != inferred[j].shape)
      return fail(results->elements[j], at(rField, j),
                  "buffer " + std::to_string(b->id) + " is " +
                      ref::shapeString(b->shape) + ", but result '" +
                      op->results[j].name + "' of " + compute.op + " is " +
                      ref::shapeString(inferred[j].shape));
  }
  return true;
}

bool Reader::readProperties(const json::Value *v,
                            const json::Value &computeValue,
                            const std::string &field, const OpContract &op,
                            Compute &compute) {
  static const json::Value empty = [] {
    json::Value object;
    object.kind = json::Kind::Object;
    return object;
  }();
  const json::Value &properties = v ? *v : empty;
  if (!checkObject(properties, field, namesOf(op.properties)))
    return false;
  for (const auto &property : op.properties) {
    std::string key = property.name;
    const json::Value *p = properties.find(key);
    std::string pField = sub(field, property.name);
    if (!p) {
      if (property.required)
        return fail(v ? *v : computeValue, field,
                    "missing property \"" + key + "\" of " + compute.op);
      continue; // the dialect's default (Compute's initial value)
    }
    switch (property.kind) {
    case PropertyKind::I64: { // pool_size, k, page_entries
      int64_t value;
      if (!integer(*p, pField, 0, std::numeric_limits<int32_t>::max(), value))
        return false;
      (key == "k"              ? compute.k
       : key == "page_entries" ? compute.pageEntries
                               : compute.poolSize) = value;
      break;
    }
    case PropertyKind::F32: // temperature, min_absmax
      if (!p->isNumber())
        return fail(*p, pField, "expected a number, got " + describeValue(*p));
      // Rounded as the dialect's f32 property stores it.
      (key == "temperature" ? compute.temperature : compute.minAbsmax) =
          double(float(p->number));
      break;
    case PropertyKind::Unit: // rotate, pow2_scale, scales_first
      if (!p->isBool())
        return fail(*p, pField,
                    "expected true or false, got " + describeValue(*p));
      (key == "rotate"         ? compute.rotate
       : key == "scales_first" ? compute.scalesFirst
                               : compute.pow2Scale) = p->boolean;
      break;
    case PropertyKind::Type: { // codes: the type's MLIR name
      // The one type property is the paged ops' code type.
      const mlir::indexpool::ElementSet &allowed = mlir::indexpool::kQuantTypes;
      std::optional<ElementType> type =
          p->isString() ? mlir::indexpool::parseElement(p->string)
                        : std::nullopt;
      if (!type || !allowed.contains(*type))
        return fail(*p, pField,
                    std::string("expected the name of a type, ") +
                        allowed.text + ", got " + describeValue(*p));
      compute.codes = *type;
      break;
    }
    }
  }
  return true;
}

bool Reader::checkDefinitions(const json::Value &root) {
  for (const Buffer &b : out.buffers) {
    bool needsCompute = b.role == BufferRole::Intermediate ||
                        (b.role == BufferRole::Output && !out.computes.empty());
    if (!needsCompute || defined.count(b.id))
      continue;
    std::string what = std::string(bufferRoleName(b.role)) + " buffer " +
                       std::to_string(b.id) +
                       " is not the result of any compute";
    if (auto it = bufferPositions.find(b.id); it != bufferPositions.end())
      return fail(root.find("buffers")->elements[it->second],
                  at("buffers", it->second), what);
    size_t position = valuePositions.at(b.id);
    return fail(root.find("values")->elements[position], at("values", position),
                "id " + std::to_string(b.id) +
                    " is not an input nor the result of any compute");
  }
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

int64_t Buffer::numElements() const { return ref::numElements(shape); }

int64_t Buffer::sizeInBytes() const {
  return numElements() * ref::elementTypeBytes(type);
}

const char *paramKindName(LaunchParam::Kind kind) {
  switch (kind) {
  case LaunchParam::Kind::Buffer:
    return "buffer";
  case LaunchParam::Kind::I32:
    return "i32";
  case LaunchParam::Kind::I64:
    return "i64";
  case LaunchParam::Kind::F32:
    return "f32";
  }
  return "?";
}

int64_t paramKindBytes(LaunchParam::Kind kind) {
  return kind == LaunchParam::Kind::I32 || kind == LaunchParam::Kind::F32 ? 4
                                                                          : 8;
}

const Kernel *Manifest::findKernel(std::string_view name) const {
  for (const Kernel &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

std::string checkPointerAlignment(const Kernel &kernel, size_t index,
                                  uint64_t pointer) {
  if (index >= kernel.params.size())
    return "";
  int64_t align = kernel.params[index].align;
  if (align <= 1 || pointer % uint64_t(align) == 0)
    return "";
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx", (unsigned long long)pointer);
  return "kernel '" + printable(kernel.name, '\'') + "' needs a " +
         std::to_string(align) + "-byte aligned pointer as parameter " +
         std::to_string(index) + ", got " + text;
}

std::string checkLaunchParams(const Manifest &manifest, const Launch &launch,
                              int64_t &param) {
  param = -1;
  const Kernel *kernel = manifest.findKernel(launch.kernel);
  std::string name = "kernel '" + printable(launch.kernel, '\'') + "'";
  if (!kernel)
    return name + " is not declared in \"kernels\" (its parameter signature "
                  "is needed to check the launch)";
  if (kernel->params.size() != launch.params.size())
    return name + " takes " + std::to_string(kernel->params.size()) +
           " parameter" + (kernel->params.size() == 1 ? "" : "s") +
           ", the launch passes " + std::to_string(launch.params.size());
  for (size_t i = 0; i < launch.params.size(); ++i) {
    const KernelParam &want = kernel->params[i];
    const LaunchParam &have = launch.params[i];
    param = int64_t(i);
    auto article = [](LaunchParam::Kind kind) {
      return std::string(kind == LaunchParam::Kind::I32 ||
                                 kind == LaunchParam::Kind::I64
                             ? "an "
                             : "a ") +
             paramKindName(kind) + " (" +
             std::to_string(paramKindBytes(kind)) + " bytes)";
    };
    if (want.kind != have.kind)
      return name + " takes " + article(want.kind) + " as parameter " +
             std::to_string(i) + ", the launch passes " + article(have.kind);
    if (have.kind != LaunchParam::Kind::Buffer)
      continue;
    const Buffer *buffer = manifest.findBuffer(have.buffer);
    if (!buffer)
      return "no buffer has id " + std::to_string(have.buffer);
    if (!buffer->hasDeviceMemory())
      return noDeviceMemory(*buffer);
    // Sizes not bound yet: bindSizes checks the extents.
    if (!manifest.needsBinding() && want.bytes > buffer->sizeInBytes())
      return name + " accesses " + std::to_string(want.bytes) +
             " bytes through parameter " + std::to_string(i) + ", but buffer " +
             std::to_string(buffer->id) + " (" +
             tensorTypeString(buffer->shape, buffer->type) + ") has " +
             std::to_string(buffer->sizeInBytes());
  }
  param = -1;
  return "";
}

int64_t Compute::operand(std::string_view name) const {
  for (const auto &[operandName, id] : operands)
    if (operandName == name)
      return id;
  return -1;
}

const Buffer *Manifest::findBuffer(int64_t id) const {
  for (const Buffer &b : buffers)
    if (b.id == id)
      return &b;
  return nullptr;
}

static std::vector<const Buffer *> buffersWithRole(const Manifest &m,
                                                   BufferRole role) {
  std::vector<const Buffer *> result;
  for (const Buffer &b : m.buffers)
    if (b.role == role)
      result.push_back(&b);
  std::sort(result.begin(), result.end(),
            [](const Buffer *a, const Buffer *b) {
              return a->index < b->index;
            });
  return result;
}

std::vector<const Buffer *> Manifest::inputs() const {
  return buffersWithRole(*this, BufferRole::Input);
}

std::vector<const Buffer *> Manifest::outputs() const {
  return buffersWithRole(*this, BufferRole::Output);
}

const Compute *Manifest::definingCompute(int64_t id,
                                         size_t *resultIndex) const {
  for (const Compute &c : computes)
    for (size_t i = 0; i < c.results.size(); ++i)
      if (c.results[i] == id) {
        if (resultIndex)
          *resultIndex = i;
        return &c;
      }
  return nullptr;
}

std::string Manifest::resolvedBinaryPath() const {
  if (binaryPath.empty() || binaryPath[0] == '/' || directory.empty())
    return binaryPath;
  return directory + "/" + binaryPath;
}

bool parseManifest(std::string_view text, const std::string &name,
                   const std::string &directory, Manifest &out,
                   std::string &error) {
  out = Manifest();
  out.name = name;
  out.directory = directory;
  json::Value root;
  std::string why;
  if (!json::parse(text, root, why)) {
    error = name + ":" + why;
    return false;
  }
  Reader reader(name, out, error);
  if (!reader.read(root)) {
    out = Manifest();
    return false;
  }
  // bindSizes reads it again with the sizes' values.
  if (out.needsBinding())
    out.source = std::make_shared<const json::Value>(std::move(root));
  return true;
}

bool Manifest::usesSmCount() const {
  return std::any_of(sizes.begin(), sizes.end(), [](const SizeExpr &size) {
    return size.op == SizeExpr::Op::SmCount;
  });
}

std::string symbolicShapeString(const Buffer &buffer) {
  if (buffer.dims.size() != buffer.shape.size())
    return ref::shapeString(buffer.shape);
  std::string text = "[";
  for (size_t i = 0; i < buffer.dims.size(); ++i)
    text += (i ? ", " : "") + (buffer.dims[i].isSize()
                                   ? std::string("?")
                                   : std::to_string(buffer.dims[i].value));
  return text + "]";
}

bool bindSizes(const Manifest &symbolic,
               const std::vector<std::vector<int64_t>> &inputShapes,
               int64_t smCount, Manifest &concrete, std::string &error) {
  std::vector<const Buffer *> inputs = symbolic.inputs();
  if (inputShapes.size() != inputs.size()) {
    error = symbolic.name + " takes " + std::to_string(inputs.size()) +
            " input" + (inputs.size() == 1 ? "" : "s") + ", got " +
            std::to_string(inputShapes.size()) + " shapes";
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Buffer &b = *inputs[i];
    const std::vector<int64_t> &shape = inputShapes[i];
    bool fits = shape.size() == b.shape.size();
    for (size_t d = 0; fits && d < shape.size(); ++d) {
      bool isSize = d < b.dims.size() && b.dims[d].isSize();
      fits = shape[d] >= 0 && (isSize || shape[d] == b.shape[d]);
    }
    if (!fits) {
      error = "input #" + std::to_string(i) + " is " +
              ref::shapeString(shape) + ", but input #" + std::to_string(i) +
              " of " + symbolic.name + " has shape " + symbolicShapeString(b);
      return false;
    }
  }
  if (!symbolic.needsBinding()) {
    concrete = symbolic;
    return true;
  }
  if (!symbolic.source) {
    error = symbolic.name + ": a manifest with sizes needs its JSON to be "
                            "bound (parseManifest keeps it)";
    return false;
  }
  std::vector<int64_t> values;
  size_t entry = 0;
  std::string why;
  if (!evaluateSizes(symbolic.sizes, inputShapes, smCount, values, entry,
                     why)) {
    const json::Value *sizes = symbolic.source->find("sizes");
    error = symbolic.name + ":" + sizes->elements[entry].location() +
            ": sizes[" + std::to_string(entry) + "]: " + why;
    return false;
  }
  // The one validation, now with values: the same checks and messages as a
  // manifest written with these integers.
  Manifest result;
  result.name = symbolic.name;
  result.directory = symbolic.directory;
  result.sizeValues = values;
  Reader reader(symbolic.name, result, error, &values);
  if (!reader.read(*symbolic.source))
    return false;
  result.source = symbolic.source;
  concrete = std::move(result);
  return true;
}

bool loadManifest(const std::string &path, Manifest &out, std::string &error) {
  std::string text;
  if (!readFileWithLimit(path, kMaxJsonBytes, "a manifest", text, error))
    return false;
  size_t slash = path.rfind('/');
  std::string directory =
      slash == std::string::npos ? "." : path.substr(0, slash ? slash : 1);
  return parseManifest(text, path, directory, out, error);
}

bool readBinary(const Manifest &manifest, std::string &image,
                std::string &error) {
  std::string path = manifest.resolvedBinaryPath();
  std::string why;
  if (!readFileWithLimit(path, kMaxKernelBinaryBytes, "a kernel binary",
                         image, why)) {
    error = "the binary of " + manifest.name + " (binary.path \"" +
            manifest.binaryPath + "\"): " + why;
    return false;
  }
  if (image.empty()) {
    error = "the binary " + path + " is empty";
    return false;
  }
  if (manifest.binaryFormat == BinaryFormat::Cubin) {
    if (image.compare(0, 4, "\x7f" "ELF") != 0) {
      error = "the binary " + path +
              " is not a cubin (no ELF header), but binary.format says "
              "\"cubin\"";
      return false;
    }
  } else {
    if (image.find('\0') != std::string::npos) {
      error = "the binary " + path +
              " is not PTX text (it holds NUL bytes), but binary.format "
              "says \"ptx\"";
      return false;
    }
    image.push_back('\0'); // cuModuleLoadData reads PTX up to a NUL
  }
  return true;
}

std::string tensorTypeString(const std::vector<int64_t> &shape,
                             ElementType type) {
  std::string text = "tensor<";
  for (int64_t size : shape)
    text += std::to_string(size) + "x";
  return text + ref::elementTypeName(type) + ">";
}

} // namespace indexpool::runtime
