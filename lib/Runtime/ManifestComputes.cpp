//===- ManifestComputes.cpp - a manifest's reference computation ----------===//
//
// "computes": each an op of the contract (OpContract.h) with its operands,
// results and properties, run shapes-only through the reference
// (ReferenceRun.cpp) so that the result buffers are what it computes; then
// that every output and intermediate is some compute's result.
//
//===----------------------------------------------------------------------===//

#include "ManifestReader.h"

#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Runtime/ReferenceRun.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace indexpool::runtime::detail {

using mlir::indexpool::OpContract;
using mlir::indexpool::PropertyKind;
using ref::ElementType;
using ref::HostTensor;

/// The ops of manifests (every op of the contract), which an unknown op's
/// message lists.
static std::vector<const char *> manifestOpNames() {
  std::vector<const char *> names;
  for (const OpContract &op : mlir::indexpool::opContracts())
    names.push_back(op.name);
  return names;
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

  const json::Value *operands = member(v, named, "operands");
  if (!operands ||
      !readOperands(*operands, sub(field, "operands"), *op, compute))
    return false;
  const json::Value *results = member(v, named, "results");
  std::string rField = sub(field, "results");
  if (!results || !readResults(*results, rField, *op, compute))
    return false;
  if (!readProperties(member(v, named, "properties", false), v,
                      sub(field, "properties"), *op, compute))
    return false;
  if (symbolic())
    return true; // shapes need the sizes' values: bindSizes checks them
  return checkResultShapes(v, named, *results, rField, *op, compute);
}

bool Reader::readOperands(const json::Value &operands, const std::string &field,
                          const OpContract &op, Compute &compute) {
  if (!checkObject(operands, field, namesOf(op.operands)))
    return false;
  for (const auto &operand : op.operands) {
    const char *operandName = operand.name;
    const json::Value *idValue = operands.find(operandName);
    if (!idValue) {
      if (!operand.optional)
        return fail(operands, field,
                    std::string("missing operand \"") + operandName + "\" of " +
                        compute.op);
      continue;
    }
    std::string idField = sub(field, operandName);
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
  return true;
}

bool Reader::readResults(const json::Value &results, const std::string &field,
                         const OpContract &op, Compute &compute) {
  if (!results.isArray() || results.elements.size() != op.results.size())
    return fail(results, field,
                compute.op + " has " + std::to_string(op.results.size()) +
                    " result" + (op.results.size() == 1 ? "" : "s") + " (" +
                    listOf(namesOf(op.results)) + "), got " +
                    (results.isArray() ? std::to_string(results.elements.size())
                                       : describeValue(results)));
  for (size_t j = 0; j < results.elements.size(); ++j) {
    const json::Value &idValue = results.elements[j];
    std::string idField = at(field, j);
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
  return true;
}

bool Reader::checkResultShapes(const json::Value &v, const std::string &named,
                               const json::Value &results,
                               const std::string &field, const OpContract &op,
                               const Compute &compute) {
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
      return fail(results.elements[j], at(field, j),
                  "buffer " + std::to_string(b->id) + " is " +
                      ref::shapeString(b->shape) + ", but result '" +
                      op.results[j].name + "' of " + compute.op + " is " +
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
      constexpr uint8_t kCodes = ::indexpool::ElementUse::PagedCode;
      std::optional<ElementType> type =
          p->isString() ? ::indexpool::parseElementType(p->string, kCodes)
                        : std::nullopt;
      if (!type)
        return fail(*p, pField,
                    p->isString()
                        ? ::indexpool::unknownElementTypeMessage(
                              p->string, "code type", kCodes)
                        : "expected the name of a code type, " +
                              ::indexpool::elementTypeList(kCodes) + ", got " +
                              describeValue(*p));
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

} // namespace indexpool::runtime::detail
