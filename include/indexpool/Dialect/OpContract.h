//===- OpContract.h - operands, results, properties of each op -*- C++ -*-===//
//
// The op contract written once: for every op of dialect/IndexPoolOps.td, its
// operands in ODS order (required or optional, allowed element types and the
// words messages use for them), its results and its properties. The verifiers
// (IndexPoolOps.cpp), the manifest writer (KernelManifest.cpp), the manifest
// reader (ManifestComputes.cpp), the reference run (ReferenceRun.cpp) and
// the random inputs of both front ends (RandomInputs.cpp: each operand's
// draw) read it.
// Plain C++17 like Shapes.h, so the MLIR-free runtime has it too; the
// OpContractTest checks it against the ODS definition and the generated op doc,
// so the two cannot drift. Shape relations are not here: they are the rules
// of Shapes.h and the verifiers' letters.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_DIALECT_OPCONTRACT_H
#define INDEXPOOL_DIALECT_OPCONTRACT_H

#include "indexpool/Reference/InputDistribution.h"
#include "indexpool/Reference/Numerics.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace mlir::indexpool {

/// The element types of the ops: the rows of ElementTypes.def (one enum
/// for the compiler and the runtimes).
using Element = ::indexpool::ElementType;
constexpr int kNumElements = ::indexpool::kNumElementTypes;

/// The MLIR spelling of `e` (the table's Name).
constexpr const char *elementName(Element e) {
  return ::indexpool::elementTypeName(e);
}

/// Inverse of elementName; std::nullopt for any other spelling.
inline std::optional<Element> parseElement(std::string_view name) {
  return ::indexpool::parseElementType(name);
}

/// A set of allowed element types with the words a message uses for it
/// ("f32, f16 or bf16"): the same words as the IndexPool_Tensor<"..."> of
/// the ODS definition.
struct ElementSet {
  uint32_t bits;
  const char *text;

  constexpr bool contains(Element e) const { return (bits >> unsigned(e)) & 1; }
};

constexpr uint32_t bitOf(Element e) { return 1u << unsigned(e); }
static_assert(::indexpool::kNumElementTypes <= 32, "ElementSet's bits");

/// The types of the table with one of `uses` (ElementUse).
constexpr uint32_t bitsWithUse(uint8_t uses) {
  uint32_t bits = 0;
  for (const ::indexpool::ElementTypeInfo &info : ::indexpool::kElementTypes)
    if (info.allows(uses))
      bits |= bitOf(info.type);
  return bits;
}

constexpr ElementSet kKeyTypes = {
    uint32_t(bitOf(Element::F32) | bitOf(Element::F16) | bitOf(Element::BF16)),
    "f32, f16 or bf16"};
constexpr ElementSet kQuantTypes = {
    bitsWithUse(::indexpool::ElementUse::DenseCode), "i8 or f8E4M3FN"};
constexpr ElementSet kQueryTypes = {
    uint32_t(kKeyTypes.bits | bitOf(Element::F8E4M3FN)),
    "f32, f16, bf16 or f8E4M3FN"};
constexpr ElementSet kCacheTypes = {uint32_t(kKeyTypes.bits | kQuantTypes.bits),
                                    "f32, f16, bf16, i8 or f8E4M3FN"};
constexpr ElementSet kF32Types = {bitOf(Element::F32), "f32"};
constexpr ElementSet kI32Types = {bitOf(Element::I32), "i32"};
constexpr ElementSet kI64Types = {bitOf(Element::I64), "i64"};
/// The bytes of a paged cache (docs/serving-layout.md).
constexpr ElementSet kPagesTypes = {bitOf(Element::I8), "i8"};

/// How a random operand is drawn (RandomInputs.h).
using InputDistribution = ::indexpool::ref::InputDistribution;

struct OperandContract {
  const char *name;
  /// An ODS Optional<...>: absent, or exactly one value.
  bool optional;
  ElementSet types;
  /// How --random-inputs draws it. QuantizedCodes on an operand that may
  /// or may not be quantized (score's keys) draws codes only when its type
  /// is a code type, else Normal.
  InputDistribution draw = InputDistribution::Normal;
};

struct ResultContract {
  const char *name;
  ElementSet types;
  /// When set, the result is f32 or of this operand's element type (a
  /// relation between two values, checked on top of `types`).
  const char *f32OrTypeOf = nullptr;
};

/// I64: I64Attr; F32: F32Attr; Unit: UnitAttr (false when absent); Type:
/// OptionalAttr<TypeAttr> (the op's default type when absent).
enum class PropertyKind { I64, F32, Unit, Type };

struct PropertyContract {
  const char *name;
  PropertyKind kind;
  /// False for a DefaultValuedAttr or a UnitAttr.
  bool required;
};

struct OpContract {
  /// The op's name without "indexpool.".
  const char *name;
  std::vector<OperandContract> operands;
  std::vector<ResultContract> results;
  std::vector<PropertyContract> properties;

  /// A paged op: it takes the page layout's properties (the cache's bytes).
  bool isPaged() const { return findProperty("page_entries") != nullptr; }

  /// The operand, result or property `name`, or nullptr.
  const OperandContract *findOperand(std::string_view n) const {
    for (const OperandContract &o : operands)
      if (n == o.name)
        return &o;
    return nullptr;
  }
  const ResultContract *findResult(std::string_view n) const {
    for (const ResultContract &r : results)
      if (n == r.name)
        return &r;
    return nullptr;
  }
  const PropertyContract *findProperty(std::string_view n) const {
    for (const PropertyContract &p : properties)
      if (n == p.name)
        return &p;
    return nullptr;
  }
};

/// Every op, in the order of dialect/IndexPoolOps.td.
inline const std::vector<OpContract> &opContracts() {
  // Built once: the verifiers look the table up for every op.
  static const std::vector<OpContract> table = [] {
    constexpr bool req = false, opt = true;
    constexpr bool required = true, defaulted = false;
    using K = PropertyKind;
    using D = InputDistribution;
    using Properties = std::vector<PropertyContract>;
    // compress's properties, which the paged compress and append share.
    const Properties compressProperties = {{"pool_size", K::I64, required},
                                           {"temperature", K::F32, defaulted},
                                           {"rotate", K::Unit, defaulted},
                                           {"pow2_scale", K::Unit, defaulted},
                                           {"min_absmax", K::F32, defaulted}};
    // The paged ops' layout properties (IndexPool_PageLayoutArgs in the .td).
    auto withPageLayout = [&](Properties properties) {
      properties.insert(properties.end(),
                        {{"page_entries", K::I64, defaulted},
                         {"codes", K::Type, defaulted},
                         {"scales_first", K::Unit, defaulted}});
      return properties;
    };
    return std::vector<OpContract>{
        {"pool",
         {{"keys", req, kKeyTypes},
          {"scores", req, kKeyTypes},
          {"bias", opt, kKeyTypes}},
         {{"pooled", kKeyTypes, "keys"}, {"weights", kF32Types}},
         {{"pool_size", K::I64, required}, {"temperature", K::F32, defaulted}}},
        {"hadamard",
         {{"input", req, kKeyTypes}},
         {{"result", kKeyTypes, "input"}},
         {}},
        {"quantize",
         {{"input", req, kKeyTypes}},
         {{"codes", kQuantTypes}, {"scales", kF32Types}},
         {{"pow2_scale", K::Unit, defaulted},
          {"min_absmax", K::F32, defaulted}}},
        {"dequantize",
         {{"codes", req, kQuantTypes, D::QuantizedCodes},
          {"scales", req, kF32Types, D::PositiveScales}},
         {{"result", kKeyTypes}},
         {}},
        {"residual",
         {{"keys", req, kKeyTypes}, {"pooled", req, kKeyTypes}},
         {{"result", kKeyTypes}},
         {{"pool_size", K::I64, required}}},
        {"reconstruct",
         {{"pooled", req, kKeyTypes}, {"residual", opt, kKeyTypes}},
         {{"result", kKeyTypes}},
         {{"pool_size", K::I64, required}}},
        {"score",
         {{"query", req, kQueryTypes},
          {"weights", req, kF32Types},
          {"keys", req, kCacheTypes, D::QuantizedCodes},
          {"scales", opt, kF32Types, D::PositiveScales}},
         {{"logits", kF32Types}},
         {}},
        {"topk",
         {{"logits", req, kF32Types},
          {"valid", opt, kI32Types, D::ValidLengths}},
         {{"values", kF32Types}, {"indices", kI32Types}},
         {{"k", K::I64, required}}},
        {"expand",
         {{"indices", req, kI32Types, D::PoolIndices}},
         {{"tokens", kI32Types}},
         {{"pool_size", K::I64, required}}},
        {"compress",
         {{"keys", req, kKeyTypes},
          {"scores", req, kKeyTypes},
          {"bias", opt, kKeyTypes}},
         {{"codes", kQuantTypes},
          {"scales", kF32Types},
          {"weights", kF32Types}},
         compressProperties},
        {"select",
         {{"query", req, kQueryTypes},
          {"weights", req, kF32Types},
          {"keys", req, kCacheTypes, D::QuantizedCodes},
          {"scales", opt, kF32Types, D::PositiveScales},
          {"valid", opt, kI32Types, D::ValidLengths}},
         {{"tokens", kI32Types}},
         {{"k", K::I64, required}, {"pool_size", K::I64, required}}},
        {"refine",
         {{"query", req, kQueryTypes},
          {"weights", req, kF32Types},
          {"candidates", req, kI32Types, D::CandidateTokens},
          {"keys", req, kCacheTypes, D::QuantizedCodes},
          {"scales", opt, kF32Types, D::PositiveScales}},
         {{"tokens", kI32Types}},
         {{"k", K::I64, required}}},
        // The paged serving layout (docs/serving-layout.md).
        {"compress_paged",
         {{"keys", req, kKeyTypes},
          {"scores", req, kKeyTypes},
          {"bias", opt, kKeyTypes},
          {"pages", req, kPagesTypes, D::Default},
          {"slots", req, kI64Types, D::PageSlots}},
         {{"result", kPagesTypes}},
         withPageLayout(compressProperties)},
        {"select_paged",
         {{"query", req, kQueryTypes},
          {"weights", req, kF32Types},
          {"pages", req, kPagesTypes, D::Default},
          {"block_table", req, kI32Types, D::PageIds},
          {"lengths", req, kI32Types, D::ValidLengths}},
         {{"tokens", kI32Types}},
         withPageLayout({{"k", K::I64, required},
                         {"pool_size", K::I64, required}})},
        {"append_paged",
         {{"keys", req, kKeyTypes},
          {"scores", req, kKeyTypes},
          {"bias", opt, kKeyTypes},
          {"tail_keys", req, kKeyTypes},
          {"tail_scores", req, kKeyTypes},
          {"lengths", req, kI32Types, D::ValidLengths},
          {"pages", req, kPagesTypes, D::Default},
          {"block_table", req, kI32Types, D::PageIds}},
         {{"result", kPagesTypes},
          {"new_tail_keys", kKeyTypes},
          {"new_tail_scores", kKeyTypes}},
         withPageLayout(compressProperties)},
        {"refine_paged",
         {{"query", req, kQueryTypes},
          {"weights", req, kF32Types},
          {"candidates", req, kI32Types, D::CandidateTokens},
          {"pages", req, kPagesTypes, D::Default},
          {"block_table", req, kI32Types, D::PageIds},
          {"lengths", req, kI32Types, D::ValidLengths}},
         {{"tokens", kI32Types}},
         withPageLayout({{"k", K::I64, required}})},
    };
  }();
  return table;
}

/// The contract of op `name` (without "indexpool."), or nullptr.
inline const OpContract *findOpContract(std::string_view name) {
  for (const OpContract &op : opContracts())
    if (name == op.name)
      return &op;
  return nullptr;
}

} // namespace mlir::indexpool

#endif // INDEXPOOL_DIALECT_OPCONTRACT_H
