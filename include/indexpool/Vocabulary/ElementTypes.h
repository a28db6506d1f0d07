//===- ElementTypes.h - the element and code types, from one table -*- C++ -*-===//
//
// ElementTypes.def as C++: the enum every layer uses (the reference's
// ElementType, the API's DType and the C API's IndexPoolDType are this
// enum), each type's facts, and the one parser and error message for a
// type's name. Header-only, C++17, no LLVM/MLIR: the MLIR-free runtime
// and the Python extension read it too.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_VOCABULARY_ELEMENTTYPES_H
#define INDEXPOOL_VOCABULARY_ELEMENTTYPES_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace indexpool {

enum class ElementType : int32_t {
#define INDEXPOOL_ELEMENT_TYPE(Enum, ...) Enum,
#include "indexpool/Vocabulary/ElementTypes.def"
};

/// Where a type may appear (a bit set; ElementTypes.def's Uses column).
namespace ElementUse {
enum : uint8_t {
  /// An element of a function's arguments and results.
  Tensor = 1,
  /// Codes of indexpool.quantize and of the dense ops' code operands.
  DenseCode = 2,
  /// The `codes` of the paged ops (docs/serving-layout.md).
  PagedCode = 4,
  Any = 7,
};
} // namespace ElementUse

enum class NumberClass { Float, Integer };

struct ElementTypeInfo {
  ElementType type;
  /// The MLIR spelling ("f8E4M3FN").
  const char *name;
  /// Bits of one value; below 8, codes are packed 8 / bits a byte.
  int bits;
  NumberClass numberClass;
  uint8_t uses;
  /// The largest code magnitude when the type holds codes; 0 otherwise.
  double qmax;
  /// The host storage of a tensor of this type (NumPy kind, DLPack code,
  /// NumPy and torch dtype names); kind 0 when no tensor holds it.
  char numpyKind;
  uint8_t dlpackCode;
  const char *numpyName;
  const char *torchName;

  constexpr bool isFloat() const { return numberClass == NumberClass::Float; }
  /// Whether the type holds quantized codes (a Qmax).
  constexpr bool holdsCodes() const { return qmax > 0; }
  constexpr bool allows(uint8_t use) const { return (uses & use) != 0; }
  /// Bytes of one element of a tensor: 0 for a type no tensor holds.
  constexpr int64_t tensorBytes() const {
    return allows(ElementUse::Tensor) ? bits / 8 : 0;
  }
  /// Codes in one byte of a page: 8 / bits below 8 bits, else 1.
  constexpr int64_t codesPerByte() const { return bits < 8 ? 8 / bits : 1; }
  /// Bytes of `count` packed codes (rounded up to whole bytes; for codes of
  /// a byte or less it cannot overflow, whatever count >= 0 a page says).
  constexpr int64_t packedBytes(int64_t count) const {
    return bits < 8 ? count / codesPerByte() + (count % codesPerByte() != 0)
                    : count * (bits / 8);
  }
};

inline constexpr ElementTypeInfo kElementTypes[] = {
#define INDEXPOOL_ELEMENT_TYPE(Enum, Name, Bits, Class, Uses, Qmax, Kind,      \
                               DLPack, Numpy, Torch)                           \
  {ElementType::Enum, Name,  Bits,  NumberClass::Class,                        \
   [] {                                                                        \
     using namespace ElementUse;                                               \
     return uint8_t(Uses);                                                     \
   }(),                                                                        \
   Qmax, Kind, DLPack, Numpy, Torch},
#include "indexpool/Vocabulary/ElementTypes.def"
};
inline constexpr int kNumElementTypes =
    int(sizeof(kElementTypes) / sizeof(kElementTypes[0]));

/// The row of `type`.
constexpr const ElementTypeInfo &elementTypeInfo(ElementType type) {
  return kElementTypes[int(type)];
}
constexpr const char *elementTypeName(ElementType type) {
  return elementTypeInfo(type).name;
}
/// Every type, in the table's order (for range-for).
struct AllElementTypes {
  const ElementTypeInfo *begin() const { return kElementTypes; }
  const ElementTypeInfo *end() const { return kElementTypes + kNumElementTypes; }
};
inline constexpr AllElementTypes allElementTypes() { return {}; }

/// The type spelled `name` whose uses meet `uses`; std::nullopt for any
/// other string (case matters, as in MLIR).
inline std::optional<ElementType>
parseElementType(std::string_view name, uint8_t uses = ElementUse::Any) {
  for (const ElementTypeInfo &info : kElementTypes)
    if (name == info.name && info.allows(uses))
      return info.type;
  return std::nullopt;
}

/// The names of the types with one of `uses`, as a message lists them:
/// "f8E4M3FN, i8 or i4".
inline std::string elementTypeList(uint8_t uses = ElementUse::Any) {
  std::string text;
  int total = 0, seen = 0;
  for (const ElementTypeInfo &info : kElementTypes)
    total += info.allows(uses);
  for (const ElementTypeInfo &info : kElementTypes) {
    if (!info.allows(uses))
      continue;
    text += seen == 0 ? "" : seen + 1 == total ? " or " : ", ";
    text += info.name;
    ++seen;
  }
  return text;
}

/// The one message for a name that is no type of `uses`: `unknown code
/// type "x" (known: f8E4M3FN, i8 or i4)`; `what` names the kind of type.
inline std::string unknownElementTypeMessage(std::string_view name,
                                             std::string_view what,
                                             uint8_t uses) {
  return "unknown " + std::string(what) + " \"" + std::string(name) +
         "\" (known: " + elementTypeList(uses) + ")";
}

} // namespace indexpool

#endif // INDEXPOOL_VOCABULARY_ELEMENTTYPES_H
