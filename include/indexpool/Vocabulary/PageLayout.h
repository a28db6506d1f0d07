//===- PageLayout.h - where the bytes of a page are --------------*- C++ -*-===//
//
// The serving layout's page (docs/serving-layout.md), defined once: E
// pooled entries, each D codes of the layout's code type (packed per
// ElementTypes.def) and one f32 scale, the E code blocks first and the E
// scales after them (or the scales first). Every page size, offset and
// layout check in the compiler, the runtimes, the cache and the fidelity
// tools is this type's. Header-only, C++17, no LLVM/MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_VOCABULARY_PAGELAYOUT_H
#define INDEXPOOL_VOCABULARY_PAGELAYOUT_H

#include "indexpool/Vocabulary/ElementTypes.h"

#include <string>

namespace indexpool::vocab {

/// Bytes of an entry's scale (one f32).
inline constexpr int64_t kScaleBytes = 4;

struct PageLayout {
  /// Pooled entries per page (E).
  int64_t entries = 64;
  /// Codes of one pooled key (D).
  int64_t dim = 128;
  /// A type with ElementUse::PagedCode.
  ElementType codes = ElementType::F8E4M3FN;
  /// false: E code blocks then E scales (the production order).
  bool scalesFirst = false;

  constexpr const ElementTypeInfo &codeInfo() const {
    return elementTypeInfo(codes);
  }
  /// The bytes of one entry's codes (D / 2 for codes two a byte).
  constexpr int64_t codeBytes() const { return codeInfo().packedBytes(dim); }
  /// codeBytes + the scale's.
  constexpr int64_t entryBytes() const { return codeBytes() + kScaleBytes; }
  /// E * entryBytes, or -1 when that overflows int64.
  int64_t pageBytes() const {
    int64_t perEntry, bytes;
    if (__builtin_add_overflow(codeBytes(), kScaleBytes, &perEntry) ||
        __builtin_mul_overflow(entries, perEntry, &bytes))
      return -1;
    return bytes;
  }
  /// The byte offsets of entry e's codes and scale inside its page.
  constexpr int64_t codesOffset(int64_t e) const {
    return (scalesFirst ? entries * kScaleBytes : 0) + e * codeBytes();
  }
  constexpr int64_t scaleOffset(int64_t e) const {
    return (scalesFirst ? 0 : entries * codeBytes()) + e * kScaleBytes;
  }

  /// Where code d of an entry is: in byte codeByteOf(d) of its codes, at
  /// bit codeShiftOf(d), codeMask() wide (code 2i in the low nibble of
  /// byte i for codes two a byte).
  constexpr int64_t codeByteOf(int64_t d) const {
    return codeInfo().bits < 8 ? d / codeInfo().codesPerByte()
                               : d * (codeInfo().bits / 8);
  }
  constexpr int codeShiftOf(int64_t d) const {
    return codeInfo().bits < 8
               ? int(d % codeInfo().codesPerByte()) * codeInfo().bits
               : 0;
  }
  constexpr uint32_t codeMask() const {
    return codeInfo().bits < 32 ? (1u << codeInfo().bits) - 1 : ~0u;
  }

  /// The rules of a layout: E >= 1, D >= 1, a paged code type, D a
  /// multiple of the codes a byte, a page that fits int64; "" when they
  /// hold, else the one message naming what does not.
  std::string check() const {
    if (entries < 1)
      return "page_entries must be at least 1, got " + std::to_string(entries);
    if (dim < 1)
      return "D must be at least 1, got " + std::to_string(dim);
    if (int(codes) < 0 || int(codes) >= kNumElementTypes ||
        !codeInfo().allows(ElementUse::PagedCode))
      return "the codes must be " + elementTypeList(ElementUse::PagedCode) +
             ", got " +
             (int(codes) >= 0 && int(codes) < kNumElementTypes
                  ? std::string(codeInfo().name)
                  : "row " + std::to_string(int(codes)));
    if (dim % codeInfo().codesPerByte() != 0)
      return dimRuleMessage(codes, dim);
    if (pageBytes() < 0)
      return "a page of " + std::to_string(entries) + " entries of D = " +
             std::to_string(dim) + " overflows int64";
    return "";
  }

  /// The message for a D that is no multiple of the codes a byte: "D must
  /// be even for i4 codes (two a byte), got 15" (no ": " in it: callers
  /// prefix their own).
  static std::string dimRuleMessage(ElementType codes, int64_t dim,
                                    const char *dimName = "D") {
    int64_t perByte = elementTypeInfo(codes).codesPerByte();
    std::string name = elementTypeInfo(codes).name;
    return std::string(dimName) +
           (perByte == 2 ? " must be even for " + name + " codes (two a byte)"
                         : " must be a multiple of " + std::to_string(perByte) +
                               " for " + name + " codes (" +
                               std::to_string(perByte) + " a byte)") +
           ", got " + std::to_string(dim);
  }

  /// The page's row width as a formula, for messages: "E * (D + 4)" or
  /// "E * (D / 2 + 4)".
  std::string pageBytesFormula() const { return formula(codes); }
  static std::string formula(ElementType codes) {
    int64_t perByte = elementTypeInfo(codes).codesPerByte();
    return perByte > 1 ? "E * (D / " + std::to_string(perByte) + " + 4)"
                       : std::string("E * (D + 4)");
  }
};

} // namespace indexpool::vocab

#endif // INDEXPOOL_VOCABULARY_PAGELAYOUT_H
