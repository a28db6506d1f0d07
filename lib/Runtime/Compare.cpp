//===- Compare.cpp - results against the float64 reference ----------------===//
//
// Moved from the evaluator (lib/Evaluator) so that indexpool-launch, which has
// no MLIR, verifies with exactly the same rules and prints the same lines.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Compare.h"

#include "indexpool/Reference/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

namespace indexpool::runtime {

using ref::ElementType;
using ref::HostTensor;

static bool hasData(const HostTensor &t) {
  return t.data.size() == size_t(t.numElements());
}

namespace {
constexpr double kF32NormwiseTolerance = 1e-5;
constexpr double kNearTieTolerance = 1e-5;
/// At most this fraction of quantized codes may differ.
constexpr double kDifferingCodeFraction = 1e-3;
/// Codes may differ by this fraction of qmax (a bf16 input's resolution).
constexpr double kCodeResolution = 1.0 / 256;
} // namespace

static bool sameValue(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

static std::string formatDouble(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3g", value);
  return buffer;
}

/// A logit with the 9 digits that tell f32 values apart: a near tie that is
/// refused shows how far apart the two were.
static std::string formatLogit(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

/// The spacing of `type` at |r|: 2^(max(exponent(r), emin) - (p - 1)).
static double ulpOf(double r, ElementType type) {
  int precision = type == ElementType::F16 ? 11 : 8;
  int minExponent = type == ElementType::F16 ? -14 : -126;
  int exponent = minExponent;
  if (r != 0 && std::isfinite(r))
    exponent = std::max(std::ilogb(r), minExponent);
  return std::ldexp(1.0, exponent - (precision - 1));
}

/// Whether two different quantized codes are neighbours in the format's
/// ordering (one step apart, on the same side of zero).
static bool isOneCodeApart(double a, double r, ElementType type) {
  if (std::isnan(a) || std::isnan(r))
    return false;
  const ElementTypeInfo &info = elementTypeInfo(type);
  if (!info.isFloat())
    return std::fabs(a - r) == 1;
  // A float code is sign and magnitude: neighbours differ by one in the
  // magnitude's bits.
  uint32_t codeA = ref::encodeCode(type, a), codeR = ref::encodeCode(type, r);
  uint32_t signBit = 1u << (info.bits - 1);
  int64_t magnitudeA = codeA & (signBit - 1), magnitudeR = codeR & (signBit - 1);
  bool sameSide = (codeA & signBit) == (codeR & signBit) || a == 0 || r == 0;
  return sameSide && std::abs(magnitudeA - magnitudeR) == 1;
}

/// The columns refine's tokens stand for (SelectionContext::candidates):
/// false with `why` set when a token is not a candidate of its row that an
/// earlier slot left.
static bool toCandidateColumns(HostTensor &tokens, const HostTensor &candidates,
                               std::string &why) {
  int64_t width = tokens.shape.back(), columns = candidates.shape.back();
  int64_t rows = width ? tokens.numElements() / width : 0;
  if (candidates.rank() != 2 || candidates.shape[0] != rows) {
    why = "the selection context does not fit the result";
    return false;
  }
  std::vector<char> taken(static_cast<size_t>(columns));
  for (int64_t m = 0; m < rows; ++m) {
    std::fill(taken.begin(), taken.end(), 0);
    const double *row = &candidates.data[m * columns];
    for (int64_t j = 0; j < width; ++j) {
      double &token = tokens.data[m * width + j];
      if (token < 0) {
        token = -1;
        continue;
      }
      const double *end = row + columns, *at = row;
      while (at != end && (*at != token || taken[size_t(at - row)]))
        ++at;
      if (at == end) {
        why = "row " + std::to_string(m) + " slot " + std::to_string(j) +
              ": token " + formatDouble(token) +
              " is not a candidate of its row (or is taken more often than "
              "it is one)";
        return false;
      }
      taken[size_t(at - row)] = 1;
      token = double(at - row);
    }
  }
  return true;
}

/// The near-tie rule for i32 selections; see compareWithReference.
static void compareSelection(const HostTensor &actual,
                             const HostTensor &expected,
                             const SelectionContext &selection, Comparison &c) {
  if (selection.candidates) {
    // Tokens -> candidate columns, then the rule for columns.
    HostTensor actualColumns = actual, expectedColumns = expected;
    std::string why;
    if (!toCandidateColumns(actualColumns, *selection.candidates, why) ||
        !toCandidateColumns(expectedColumns, *selection.candidates, why)) {
      ++c.differing;
      if (c.ok) {
        c.ok = false;
        c.reason = why;
      }
      return;
    }
    SelectionContext columns = selection;
    columns.candidates.reset();
    compareSelection(actualColumns, expectedColumns, columns, c);
    return;
  }
  // Rows are all dimensions but the last: [M, K] of select, [B, S, K] of
  // select_paged.
  int64_t width = actual.shape.back(), rows = width ? c.elements / width : 0;
  int64_t tail = selection.tailColumns, ranked = width - tail;
  int64_t p = selection.poolSize;
  auto fail = [&](const std::string &why) {
    if (c.ok) {
      c.ok = false;
      c.reason = why;
    }
  };
  if (p < 1 || tail < 0 || ranked < 0 || ranked % p != 0 ||
      selection.logits.rank() != 2 || selection.logits.shape[0] != rows ||
      (selection.valid && selection.valid->numElements() != rows)) {
    fail("the selection context does not fit the result");
    return;
  }
  int64_t columns = selection.logits.shape[1];
  std::vector<char> seen(static_cast<size_t>(columns), 0);
  for (int64_t m = 0; m < rows; ++m) {
    std::fill(seen.begin(), seen.end(), 0);
    int64_t limit = columns;
    if (selection.valid)
      limit =
          int64_t(std::clamp(selection.valid->data[m], 0.0, double(columns)));
    // data() + offset: a selection over no entries has no logits at all.
    const double *logits = selection.logits.data.data() + m * columns;
    // The tail tokens are selected without a score: no near tie.
    for (int64_t t = ranked; t < width; ++t) {
      double a = actual.data[m * width + t], r = expected.data[m * width + t];
      if (a == r)
        continue;
      ++c.differing;
      fail("row " + std::to_string(m) + " slot " + std::to_string(t) +
           " (tail): " + formatDouble(a) + ", expected " + formatDouble(r));
      return;
    }
    for (int64_t j = 0; j < ranked / p; ++j) {
      const double *a = &actual.data[m * width + j * p];
      const double *r = &expected.data[m * width + j * p];
      std::string where =
          "row " + std::to_string(m) + " slot " + std::to_string(j * p);
      // The pool each slot group names: every P tokens of one pool.
      int64_t poolA = a[0] < 0 ? -1 : int64_t(a[0]) / p;
      int64_t poolR = r[0] < 0 ? -1 : int64_t(r[0]) / p;
      int64_t differingHere = 0;
      for (int64_t s = 0; s < p; ++s) {
        double want = poolA < 0 ? -1.0 : double(poolA * p + s);
        if (a[s] != want) {
          fail(where + ": " + formatDouble(a[s]) +
               " is not an expansion of one pool");
          return;
        }
        differingHere += a[s] != r[s];
      }
      if (poolA >= 0) {
        if (poolA >= limit) {
          fail(where + ": index " + std::to_string(poolA) + " is outside the " +
               std::to_string(limit) + " valid columns");
          return;
        }
        if (seen[size_t(poolA)]) {
          fail(where + ": index " + std::to_string(poolA) +
               " is selected twice");
          return;
        }
        seen[size_t(poolA)] = 1;
      }
      if (!differingHere)
        continue;
      c.differing += differingHere;
      if (poolA < 0 || poolR < 0) {
        fail(where + ": index " + std::to_string(poolA) + ", expected " +
             std::to_string(poolR));
        return;
      }
      double la = logits[poolA], lr = logits[poolR];
      if (!(std::fabs(la - lr) <=
            kNearTieTolerance * std::max(std::fabs(la), std::fabs(lr)))) {
        fail(where + ": index " + std::to_string(poolA) + " (logit " +
             formatLogit(la) + ") instead of " + std::to_string(poolR) +
             " (logit " + formatLogit(lr) + ")");
        return;
      }
      ++c.nearTieSwaps;
    }
  }
}

Comparison compareWithReference(const HostTensor &actual,
                                const HostTensor &expected,
                                const SelectionContext *selection) {
  Comparison c;
  c.elements = expected.numElements();
  auto fail = [&](const std::string &why) {
    if (c.ok) {
      c.ok = false;
      c.reason = why;
    }
  };
  if (actual.shape != expected.shape || actual.type != expected.type ||
      !hasData(actual) || !hasData(expected)) {
    fail("got " + ref::shapeString(actual.shape) + " " +
         ref::elementTypeName(actual.type) + ", expected " +
         ref::shapeString(expected.shape) + " " +
         ref::elementTypeName(expected.type));
    return c;
  }
  ElementType type = expected.type;
  double maxReference = 0;
  for (double r : expected.data)
    if (std::isfinite(r))
      maxReference = std::max(maxReference, std::fabs(r));
  bool narrowFloat =
      elementTypeInfo(type).isFloat() && elementTypeInfo(type).bits < 32;
  for (size_t i = 0; i < expected.data.size(); ++i) {
    double a = actual.data[i], r = expected.data[i];
    // A NaN of a narrow float type is stored as its one canonical positive
    // pattern (0x7F, 0x7FC0, 0x7E00); a negative one is a wrong encoder.
    if (narrowFloat && std::isnan(a) && std::signbit(a)) {
      ++c.differing;
      fail("element " + std::to_string(i) + " is a negative NaN, expected " +
           (std::isnan(r) ? "the canonical positive NaN" : formatDouble(r)));
      continue;
    }
    if (sameValue(a, r))
      continue;
    if (!(selection && type == ElementType::I32))
      ++c.differing;
    double abs = std::fabs(a - r);
    if (std::isnan(abs))
      abs = std::numeric_limits<double>::infinity();
    c.maxAbsError = std::max(c.maxAbsError, abs);
    c.maxRelError =
        std::max(c.maxRelError, r == 0 ? std::numeric_limits<double>::infinity()
                                       : abs / std::fabs(r));
    if (!std::isfinite(a) || !std::isfinite(r))
      fail("element " + std::to_string(i) + " is " + formatDouble(a) +
           ", expected " + formatDouble(r));
    if (elementTypeInfo(type).holdsCodes()) {
      double qmax = ref::qmax(type);
      if (isOneCodeApart(a, r, type))
        ++c.offByOne;
      else if (abs <= kCodeResolution * qmax)
        ++c.beyondOneCode;
      else
        fail("element " + std::to_string(i) + " is " + formatDouble(a) +
             ", more than one code and more than 2^-8 * qmax from " +
             formatDouble(r));
      continue;
    }
    switch (type) {
    case ElementType::F32:
      break;
    case ElementType::F16:
    case ElementType::BF16: {
      double ulps = abs / ulpOf(r, type);
      c.maxUlpError = std::max(c.maxUlpError, ulps);
      if (ulps <= 1)
        break;
      ++c.beyondOneUlp;
      if (abs > ulpOf(r, type) + ulpOf(maxReference, type))
        fail("element " + std::to_string(i) + " is " + formatDouble(a) + ", " +
             formatDouble(ulps) + " ulp from " + formatDouble(r) +
             ", beyond one ulp of max|ref| " + formatDouble(maxReference));
      break;
    }
    default: // the code types, above
      break;
    case ElementType::I32:
      if (!selection)
        fail("element " + std::to_string(i) + " is " + formatDouble(a) +
             ", expected " + formatDouble(r));
      break;
    case ElementType::I64:
      fail("element " + std::to_string(i) + " is " + formatDouble(a) +
           ", expected " + formatDouble(r));
      break;
    }
  }
  if (type == ElementType::F32) {
    c.normwiseRelError = c.maxAbsError == 0 ? 0
                         : maxReference == 0
                             ? std::numeric_limits<double>::infinity()
                             : c.maxAbsError / maxReference;
    if (c.normwiseRelError > kF32NormwiseTolerance)
      fail("normwise_rel_err " + formatDouble(c.normwiseRelError) + " > " +
           formatDouble(kF32NormwiseTolerance));
  }
  if (elementTypeInfo(type).holdsCodes() &&
      double(c.differing) > kDifferingCodeFraction * double(c.elements))
    fail("differing codes " + std::to_string(c.differing) + " > 0.1% of " +
         std::to_string(c.elements));
  if (type == ElementType::I32 && selection) {
    if (expected.rank() < 2)
      fail("a selection result must be [M, K] or [B, S, K]");
    else
      compareSelection(actual, expected, *selection, c);
  }
  return c;
}

SelectionContext selectPagedContext(const HostTensor &q, const HostTensor &w,
                                    const HostTensor &pages,
                                    const HostTensor &blockTable,
                                    const HostTensor &lengths,
                                    int64_t poolSize,
                                    const ref::PageLayout &layout) {
  ref::PagedLogits scored = ref::selectPagedLogits(q, w, pages, blockTable,
                                                   lengths, poolSize, layout);
  SelectionContext context;
  context.logits = std::move(scored.logits);
  context.valid = std::move(scored.valid);
  context.poolSize = poolSize;
  context.tailColumns = poolSize - 1;
  return context;
}

SelectionContext refinePagedContext(const HostTensor &q, const HostTensor &w,
                                    const HostTensor &candidates,
                                    const HostTensor &pages,
                                    const HostTensor &blockTable,
                                    const HostTensor &lengths,
                                    const ref::PageLayout &layout) {
  SelectionContext context;
  context.logits = ref::refinePagedLogits(q, w, candidates, pages, blockTable,
                                          lengths, layout);
  HostTensor rows = candidates;
  rows.shape = {candidates.shape[0] * candidates.shape[1],
                candidates.shape[2]};
  context.candidates = std::move(rows);
  return context;
}

Comparison comparePages(const HostTensor &actual, const HostTensor &expected,
                        const ref::PageLayout &layout) {
  Comparison c;
  c.elements = int64_t(actual.data.size());
  if (actual.shape != expected.shape || !hasData(actual) ||
      !hasData(expected) || actual.rank() != 2 ||
      actual.shape[1] != layout.pageBytes()) {
    c.ok = false;
    c.reason = "pages " + ref::shapeString(actual.shape) +
               " do not match the reference's " +
               ref::shapeString(expected.shape) + " and the page layout";
    return c;
  }
  // Every entry of every page, in slot order: one table row listing them.
  int64_t pages = actual.shape[0], entries = pages * layout.entries;
  HostTensor table = HostTensor::zeros(ElementType::I32, {1, pages});
  for (int64_t i = 0; i < pages; ++i)
    table.data[size_t(i)] = double(i);
  ref::Entries a = ref::gatherEntries(actual, layout, table, 0, entries);
  ref::Entries r = ref::gatherEntries(expected, layout, table, 0, entries);
  // Identical bytes are equal whatever they encode: entries no kernel writes
  // keep the caller's bytes, NaN patterns of any sign included.
  // (A byte of codes two a byte holds its neighbour too.)
  int64_t pageBytes = layout.pageBytes();
  for (int64_t e = 0; e < entries; ++e)
    for (int64_t d = 0; d < layout.dim; ++d) {
      size_t byte = size_t((e / layout.entries) * pageBytes +
                           layout.codesOffset(e % layout.entries) +
                           layout.codeByteOf(d));
      if (actual.data[byte] == expected.data[byte])
        a.codes.data[size_t(e * layout.dim + d)] =
            r.codes.data[size_t(e * layout.dim + d)] = 0;
    }
  Comparison codes = compareWithReference(a.codes, r.codes);
  c = codes;
  c.elements = int64_t(actual.data.size());
  for (int64_t e = 0; e < entries && c.ok; ++e) {
    double x = a.scale.data[size_t(e)], y = r.scale.data[size_t(e)];
    if (sameValue(x, y))
      continue;
    ++c.differing;
    double abs = std::fabs(x - y);
    c.maxAbsError = std::max(c.maxAbsError, abs);
    if (!(abs <= kF32NormwiseTolerance * std::fabs(y))) {
      c.ok = false;
      c.reason = "the scale of entry " + std::to_string(e) + " is " +
                 formatDouble(x) + ", expected " + formatDouble(y);
    }
  }
  return c;
}

std::string formatComparison(const Comparison &c, ElementType type) {
  std::string text = "max_abs_err=" + formatDouble(c.maxAbsError) +
                     " max_rel_err=" + formatDouble(c.maxRelError);
  if (type == ElementType::F32)
    text += " normwise_rel_err=" + formatDouble(c.normwiseRelError);
  if (type == ElementType::F16 || type == ElementType::BF16)
    text += " max_ulp_err=" + formatDouble(c.maxUlpError) +
            " beyond_one_ulp=" + std::to_string(c.beyondOneUlp);
  char percent[32];
  std::snprintf(percent, sizeof(percent), "%.4g",
                c.elements ? 100.0 * double(c.differing) / double(c.elements)
                           : 0.0);
  text += " differing=" + std::to_string(c.differing) + "/" +
          std::to_string(c.elements) + " (" + percent + "%)";
  if (elementTypeInfo(type).holdsCodes())
    text += " off_by_one=" + std::to_string(c.offByOne) +
            " beyond_one_code=" + std::to_string(c.beyondOneCode);
  if (type == ElementType::I32)
    text += " near_tie_swaps=" + std::to_string(c.nearTieSwaps);
  text += c.ok ? " -> ok" : " -> FAILED: " + c.reason;
  return text;
}

} // namespace indexpool::runtime
