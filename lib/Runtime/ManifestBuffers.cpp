//===- ManifestBuffers.cpp - a manifest's sizes, buffers and values -------===//
//
// "sizes" (what each is computed from), "buffers" (the device memory, and
// the outputs in place of an input) and "values" (the reference's
// intermediates, and the buffers again as its computes see them).
//
//===----------------------------------------------------------------------===//

#include "ManifestReader.h"

#include "indexpool/Reference/HostTensor.h"

#include <limits>
#include <optional>

namespace indexpool::runtime::detail {

using ref::ElementType;

/// A buffer's or value's "type": a row of ElementTypes.def that tensors
/// have (a page code type such as i4 is none).
static std::optional<ElementType> tensorElementType(const json::Value &type) {
  return type.isString()
             ? ::indexpool::parseElementType(type.string, ElementUse::Tensor)
             : std::nullopt;
}

/// The one message for any other value, listing the known types.
static std::string unknownTensorType(const json::Value &type) {
  return "unknown element type " + describeValue(type) + " (known: " +
         ::indexpool::elementTypeList(ElementUse::Tensor) + ")";
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

bool Reader::readBuffers(const json::Value &v) {
  if (!checkArray(v, "buffers"))
    return false;
  for (size_t i = 0; i < v.elements.size(); ++i) {
    Buffer buffer;
    if (!readBuffer(v.elements[i], at("buffers", i), buffer))
      return false;
    bufferPositions[buffer.id] = i;
    out.buffers.push_back(std::move(buffer));
  }
  if (!checkIndices(v))
    return false;
  for (const Buffer &b : out.buffers)
    if (b.role == BufferRole::Input)
      defined[b.id] = -1;
  return checkInPlace(v);
}

bool Reader::readBuffer(const json::Value &b, const std::string &field,
                        Buffer &buffer) {
  if (!checkObject(b, field,
                   {"id", "role", "index", "type", "shape", "in_place_of"}))
    return false;
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
                "expected " + listOf(roles) + ", got " + describeValue(*role));
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
  std::optional<ElementType> element = tensorElementType(*type);
  if (!element)
    return fail(*type, sub(field, "type"), unknownTensorType(*type));
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
  return true;
}

bool Reader::checkIndices(const json::Value &v) {
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
  return true;
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
    std::optional<ElementType> element = tensorElementType(*type);
    if (!element)
      return fail(*type, sub(field, "type"), unknownTensorType(*type));
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

} // namespace indexpool::runtime::detail
