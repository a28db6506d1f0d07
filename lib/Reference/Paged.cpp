//===- Paged.cpp - float64 reference of the paged serving layout ----------===//

#include "indexpool/Reference/Paged.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace indexpool::ref {

namespace {

/// A byte as the I8 page tensors hold it: its signed value.
double byteValue(uint8_t byte) { return double(int8_t(byte)); }
uint8_t valueByte(double value) { return uint8_t(int8_t(value)); }

std::string sizeText(int64_t v) { return std::to_string(v); }

/// Code d of the entry whose code bytes start at `bytes`, decoded.
double codeAt(const double *bytes, const PageLayout &layout, int64_t d) {
  uint8_t byte = valueByte(bytes[layout.codeByteOf(d)]);
  return decodeCode(layout.codes,
                    (uint32_t(byte) >> layout.codeShiftOf(d)) &
                        layout.codeMask());
}

/// The f32 bits of a value the reference rounded to f32 (NaN canonical, as
/// the kernels store it).
uint32_t f32Bits(double value) {
  float f = std::isnan(value) ? std::numeric_limits<float>::quiet_NaN()
                              : float(value);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

double f32FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return double(f);
}

std::string checkPages(const HostTensor &pages, const PageLayout &layout) {
  std::string why = checkPageLayout(layout);
  if (!why.empty())
    return why;
  if (pages.type != ElementType::I8 || pages.rank() != 2 ||
      pages.shape[1] != layout.pageBytes())
    return "pages must be [pages, " + layout.pageBytesFormula() +
           "] = [pages, " + sizeText(layout.pageBytes()) +
           "] of i8, got " + shapeString(pages.shape) + " of " +
           elementTypeName(pages.type);
  return "";
}

} // namespace

void writeEntry(HostTensor &pages, const PageLayout &layout, int64_t slot,
                const HostTensor &codes, int64_t row, double scale) {
  int64_t pageBytes = layout.pageBytes();
  assert(slot >= 0 && slot / layout.entries < pages.shape[0]);
  double *page = pages.data.data() + (slot / layout.entries) * pageBytes;
  int64_t e = slot % layout.entries;
  const double *values = codes.data.data() + row * layout.dim;
  double *out = page + layout.codesOffset(e);
  std::vector<uint8_t> packed(size_t(layout.codeBytes()), 0);
  for (int64_t d = 0; d < layout.dim; ++d)
    packed[size_t(layout.codeByteOf(d))] |=
        uint8_t(encodeCode(layout.codes, values[d]) << layout.codeShiftOf(d));
  for (size_t i = 0; i < packed.size(); ++i)
    out[i] = byteValue(packed[i]);
  uint32_t bits = f32Bits(scale);
  for (int i = 0; i < 4; ++i)
    page[layout.scaleOffset(e) + i] = byteValue(uint8_t(bits >> (8 * i)));
}

Entries gatherEntries(const HostTensor &pages, const PageLayout &layout,
                      const HostTensor &blockTable, int64_t row,
                      int64_t count) {
  int64_t pageBytes = layout.pageBytes(), maxPages = blockTable.shape[1];
  Entries entries{HostTensor::zeros(layout.codes, {count, layout.dim}),
                  HostTensor::zeros(ElementType::F32, {count})};
  for (int64_t j = 0; j < count; ++j) {
    int64_t page = int64_t(blockTable.data[row * maxPages + j / layout.entries]);
    assert(page >= 0 && page < pages.shape[0]);
    const double *bytes = pages.data.data() + page * pageBytes;
    int64_t e = j % layout.entries;
    for (int64_t d = 0; d < layout.dim; ++d)
      entries.codes.data[j * layout.dim + d] =
          codeAt(bytes + layout.codesOffset(e), layout, d);
    uint32_t bits = 0;
    for (int i = 0; i < 4; ++i)
      bits |= uint32_t(valueByte(bytes[layout.scaleOffset(e) + i])) << (8 * i);
    entries.scale.data[j] = f32FromBits(bits);
  }
  return entries;
}

//===----------------------------------------------------------------------===//
// compress_paged
//===----------------------------------------------------------------------===//

std::string checkCompressPaged(const HostTensor &keys,
                               const HostTensor &scores,
                               const HostTensor *bias, const HostTensor &pages,
                               const HostTensor &slots,
                               const CompressOptions &options,
                               const PageLayout &layout) {
  std::string why = checkCompress(keys, scores, bias, options);
  if (!why.empty())
    return why;
  if (options.quantizedType != layout.codes)
    return "the codes of the pages must be the quantized type";
  if (keys.shape[1] != layout.dim)
    return "keys must be [T, D] with D = " + sizeText(layout.dim) +
           " (the pages' entry size), got " + shapeString(keys.shape);
  why = checkPages(pages, layout);
  if (!why.empty())
    return why;
  int64_t groups = keys.shape[0] / options.poolSize;
  if (slots.rank() != 1 || slots.shape[0] != groups)
    return "slots must be [G] = [" + sizeText(groups) +
           "] (one per group of P keys), got " + shapeString(slots.shape);
  // Every slot is checked, not only those in range of double precision.
  double capacity = double(pages.shape[0]) * double(layout.entries);
  std::set<double> seen;
  for (int64_t g = 0; g < groups && slots.data.size() == size_t(groups); ++g) {
    double slot = slots.data[g];
    if (slot < 0)
      continue;
    if (slot >= capacity)
      return "slot " + sizeText(int64_t(slot)) + " of group " + sizeText(g) +
             " is outside the pages (" + sizeText(pages.shape[0]) +
             " pages of " + sizeText(layout.entries) + " entries)";
    if (!seen.insert(slot).second)
      return "slot " + sizeText(int64_t(slot)) + " is written twice (group " +
             sizeText(g) + ")";
  }
  return "";
}

HostTensor compressPaged(const HostTensor &keys, const HostTensor &scores,
                         const HostTensor *bias, const HostTensor &pages,
                         const HostTensor &slots,
                         const CompressOptions &options,
                         const PageLayout &layout) {
  assert(checkCompressPaged(keys, scores, bias, pages, slots, options, layout)
             .empty());
  CompressResult dense = compress(keys, scores, bias, options);
  HostTensor result = pages;
  for (int64_t g = 0; g < slots.shape[0]; ++g)
    if (slots.data[g] >= 0)
      writeEntry(result, layout, int64_t(slots.data[g]), dense.q, g,
                 dense.scale.data[g]);
  return result;
}

//===----------------------------------------------------------------------===//
// select_paged
//===----------------------------------------------------------------------===//

std::string checkSelectPaged(const HostTensor &q, const HostTensor &w,
                             const HostTensor &pages,
                             const HostTensor &blockTable,
                             const HostTensor &lengths, int64_t k,
                             int64_t poolSize, const PageLayout &layout) {
  std::string why = checkPages(pages, layout);
  if (!why.empty())
    return why;
  if (q.rank() != 4 || q.shape[3] != layout.dim)
    return "query must be [B, S, H, D] with D = " + sizeText(layout.dim) +
           ", got " + shapeString(q.shape);
  int64_t batch = q.shape[0], rows = q.shape[1], heads = q.shape[2];
  if (w.shape != std::vector<int64_t>{batch, rows, heads})
    return "weights must be [B, S, H] = " +
           shapeString({batch, rows, heads}) + ", got " + shapeString(w.shape);
  if (blockTable.rank() != 2 || blockTable.shape[0] != batch)
    return "block_table must be [B, max_pages] with B = " + sizeText(batch) +
           ", got " + shapeString(blockTable.shape);
  if (lengths.shape != std::vector<int64_t>{batch, rows})
    return "lengths must be [B, S] = " + shapeString({batch, rows}) +
           ", got " + shapeString(lengths.shape);
  if (k < 0)
    return "k must be >= 0, got " + sizeText(k);
  if (poolSize < 1)
    return "pool_size must be >= 1, got " + sizeText(poolSize);
  int64_t maxPages = blockTable.shape[1];
  // The pooled entries must fit the table; the tail lives outside the pages.
  double capacity = double(maxPages) * double(layout.entries);
  if (lengths.data.size() != size_t(batch * rows) ||
      blockTable.data.size() != size_t(batch * maxPages))
    return ""; // shapes only
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t s = 0; s < rows; ++s) {
      double length = lengths.data[b * rows + s];
      std::string row = "query row (" + sizeText(b) + ", " + sizeText(s) + ")";
      if (length < 0)
        return "the length of " + row + " must be >= 0, got " +
               sizeText(int64_t(length));
      int64_t entries = int64_t(length) / poolSize;
      if (double(entries) > capacity)
        return "the length " + sizeText(int64_t(length)) + " of " + row +
               " needs " + sizeText(entries) +
               (poolSize == 1 ? " entries (one per token)" : " pooled entries") +
               ", more than max_pages * E = " +
               sizeText(int64_t(capacity));
      int64_t used = (entries + layout.entries - 1) / layout.entries;
      for (int64_t i = 0; i < used; ++i) {
        double page = blockTable.data[b * maxPages + i];
        if (page < 0 || page >= double(pages.shape[0]))
          return "block_table[" + sizeText(b) + ", " + sizeText(i) +
                 "] = " + sizeText(int64_t(page)) +
                 " is not a page id in [0, " + sizeText(pages.shape[0]) + ")";
      }
    }
  return "";
}

namespace {

/// overflowLikeF32 (Numerics.h), written here as a select so that the loops
/// below vectorize: the same threshold, the same infinity, NaN unchanged.
inline double overflowLikeF32Inline(double x) {
  constexpr double kF32OverflowThreshold = 0x1.ffffffp127;
  return std::fabs(x) >= kF32OverflowThreshold
             ? std::copysign(std::numeric_limits<double>::infinity(), x)
             : x;
}

/// Half of f32's overflow threshold. With m = max|q| * max|code|, every
/// rounded product of a dot is at most m (1 + 2^-53) and every rounded
/// partial sum at most D m (1 + 2^-53)^(D + 1) < 2 D m: none reaches the
/// threshold while D m is below this bound.
constexpr double kNoOverflowBound = 0x1.ffffffp126;

/// dot[e] = sum over d of query[d] * codes[d, e], in d order, for the E
/// entries of one page side by side, each product and partial sum through
/// overflowLikeF32 when `Checked` (score's operations).
template <bool Checked>
void dotProducts(const double *query, const double *codes, int64_t dim,
                 int64_t entries, double *dot) {
  for (int64_t d = 0; d < dim; ++d) {
    double x = query[d];
    const double *column = codes + d * entries;
    for (int64_t e = 0; e < entries; ++e) {
      if constexpr (Checked)
        dot[e] = overflowLikeF32Inline(dot[e] +
                                       overflowLikeF32Inline(x * column[e]));
      else
        dot[e] = dot[e] + x * column[e];
    }
  }
}

/// score's logits (Reference.cpp) of one query row over the first `count`
/// entries of block table row `row`, into `logits`: the same operations in
/// the same order, so the same bits. Only the loop order differs: a page's
/// codes are decoded once into a [D, E] block, and each head's E dot products
/// run side by side over d (E independent sums, each still in d order). That
/// vectorizes: ~25x faster than score's loop (27 ms, not 0.7 s, for a query
/// row of 64K tokens), so that --verify checks every decode step of a run.
void scoreRow(const double *query, const double *weights, int64_t heads,
              const HostTensor &pages, const PageLayout &layout,
              const HostTensor &blockTable, int64_t row, int64_t count,
              double *logits) {
  int64_t entries = layout.entries, dim = layout.dim;
  int64_t pageBytes = layout.pageBytes(), maxPages = blockTable.shape[1];
  // Every bit pattern of the code type, decoded once.
  double decoded[256];
  for (uint32_t bits = 0; bits <= layout.codeMask() && bits < 256; ++bits)
    decoded[bits] = decodeCode(layout.codes, bits);
  std::vector<double> codes(static_cast<size_t>(dim * entries));
  std::vector<double> scale(static_cast<size_t>(entries));
  std::vector<double> dot(static_cast<size_t>(entries));
  std::vector<double> total(static_cast<size_t>(entries));
  // max |q| of each head; NaN when a value is NaN (then the checked loop).
  std::vector<double> queryAbsmax(static_cast<size_t>(heads), 0.0);
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t d = 0; d < dim; ++d)
      queryAbsmax[h] = std::isnan(query[h * dim + d])
                           ? query[h * dim + d]
                           : std::max(queryAbsmax[h],
                                      std::fabs(query[h * dim + d]));
  for (int64_t first = 0; first < count; first += entries) {
    int64_t page = int64_t(blockTable.data[row * maxPages + first / entries]);
    const double *bytes = pages.data.data() + page * pageBytes;
    double codesAbsmax = 0;
    for (int64_t e = 0; e < entries; ++e) {
      const double *entry = bytes + layout.codesOffset(e);
      for (int64_t d = 0; d < dim; ++d) {
        double code = decoded[(uint32_t(valueByte(
                                   entry[layout.codeByteOf(d)])) >>
                               layout.codeShiftOf(d)) &
                              layout.codeMask()];
        codes[d * entries + e] = code;
        codesAbsmax = std::isnan(code) ? code
                                       : std::max(codesAbsmax, std::fabs(code));
      }
      uint32_t bits = 0;
      for (int i = 0; i < 4; ++i)
        bits |= uint32_t(valueByte(bytes[layout.scaleOffset(e) + i]))
                << (8 * i);
      scale[e] = f32FromBits(bits);
    }
    std::fill(total.begin(), total.end(), 0.0);
    for (int64_t h = 0; h < heads; ++h) {
      std::fill(dot.begin(), dot.end(), 0.0);
      // Where no product or partial sum can come near f32's overflow (and
      // no value is NaN or infinite), overflowLikeF32 is the identity on
      // each of them: the loop without it computes the same bits.
      if (double(dim) * queryAbsmax[h] * codesAbsmax < kNoOverflowBound)
        dotProducts</*Checked=*/false>(query + h * dim, codes.data(), dim,
                                       entries, dot.data());
      else
        dotProducts</*Checked=*/true>(query + h * dim, codes.data(), dim,
                                      entries, dot.data());
      double weight = weights[h];
      for (int64_t e = 0; e < entries; ++e) {
        double scaled = overflowLikeF32Inline(scale[e] * dot[e]);
        // IEEE maximum(x, +0): NaN stays NaN, -0 becomes +0.
        double relu = scaled > 0 || std::isnan(scaled) ? scaled : 0.0;
        // Fused in the kernels: w x relu exact, only the sum overflows.
        total[e] = overflowLikeF32Inline(total[e] + weight * relu);
      }
    }
    for (int64_t e = 0; e < std::min(entries, count - first); ++e)
      logits[first + e] = roundToF32(total[e]);
  }
}

} // namespace

PagedLogits selectPagedLogits(const HostTensor &q, const HostTensor &w,
                              const HostTensor &pages,
                              const HostTensor &blockTable,
                              const HostTensor &lengths, int64_t poolSize,
                              const PageLayout &layout) {
  assert(checkSelectPaged(q, w, pages, blockTable, lengths, 0, poolSize,
                          layout)
             .empty());
  int64_t batch = q.shape[0], rows = q.shape[1], heads = q.shape[2],
          dim = q.shape[3];
  int64_t columns = 0;
  for (double length : lengths.data)
    columns = std::max(columns, int64_t(length) / poolSize);
  PagedLogits result{HostTensor::zeros(ElementType::F32,
                                       {batch * rows, columns}),
                     HostTensor::zeros(ElementType::I32, {batch * rows})};
  for (int64_t row = 0; row < batch * rows; ++row) {
    int64_t count = int64_t(lengths.data[row]) / poolSize;
    result.valid.data[row] = double(count);
    scoreRow(q.data.data() + row * heads * dim, w.data.data() + row * heads,
             heads, pages, layout, blockTable, row / rows, count,
             result.logits.data.data() + row * columns);
  }
  return result;
}

HostTensor selectPaged(const HostTensor &q, const HostTensor &w,
                       const HostTensor &pages, const HostTensor &blockTable,
                       const HostTensor &lengths, int64_t k, int64_t poolSize,
                       const PageLayout &layout) {
  assert(checkSelectPaged(q, w, pages, blockTable, lengths, k, poolSize,
                          layout)
             .empty());
  int64_t batch = q.shape[0], rows = q.shape[1], heads = q.shape[2],
          dim = q.shape[3];
  int64_t width = k * poolSize + poolSize - 1;
  HostTensor tokens = HostTensor::zeros(ElementType::I32, {batch, rows, width});
  for (int64_t row = 0; row < batch * rows; ++row) {
    int64_t length = int64_t(lengths.data[row]);
    int64_t count = length / poolSize;
    // One query row as a dense select over this sequence's entries: its
    // logits, then topk and expand as select does.
    HostTensor logits = HostTensor::zeros(ElementType::F32, {1, count});
    scoreRow(q.data.data() + row * heads * dim, w.data.data() + row * heads,
             heads, pages, layout, blockTable, row / rows, count,
             logits.data.data());
    HostTensor expanded = expand(topk(logits, nullptr, k).indices, poolSize);
    double *out = tokens.data.data() + row * width;
    std::copy(expanded.data.begin(), expanded.data.end(), out);
    for (int64_t t = 0; t < poolSize - 1; ++t)
      out[k * poolSize + t] =
          count * poolSize + t < length ? double(count * poolSize + t) : -1;
  }
  return tokens;
}

//===----------------------------------------------------------------------===//
// refine_paged
//===----------------------------------------------------------------------===//

std::string checkRefinePaged(const HostTensor &q, const HostTensor &w,
                             const HostTensor &candidates,
                             const HostTensor &pages,
                             const HostTensor &blockTable,
                             const HostTensor &lengths, int64_t k,
                             const PageLayout &layout) {
  // select_paged's rules with one entry per token (P = 1), k not bounded
  // by the entries but by the candidates.
  std::string why = checkSelectPaged(q, w, pages, blockTable, lengths, 0,
                                     /*poolSize=*/1, layout);
  if (!why.empty())
    return why;
  int64_t batch = q.shape[0], rows = q.shape[1];
  if (candidates.rank() != 3 || candidates.shape[0] != batch ||
      candidates.shape[1] != rows)
    return "candidates must be [B, S, C] with [B, S] = " +
           shapeString({batch, rows}) + ", got " +
           shapeString(candidates.shape);
  if (k < 0 || k > candidates.shape[2])
    return "k must be in [0, C = " + sizeText(candidates.shape[2]) +
           "], got " + sizeText(k);
  return "";
}

HostTensor refinePagedLogits(const HostTensor &q, const HostTensor &w,
                             const HostTensor &candidates,
                             const HostTensor &pages,
                             const HostTensor &blockTable,
                             const HostTensor &lengths,
                             const PageLayout &layout) {
  assert(checkRefinePaged(q, w, candidates, pages, blockTable, lengths, 0,
                          layout)
             .empty());
  int64_t batch = q.shape[0], rows = q.shape[1], heads = q.shape[2],
          dim = q.shape[3], columns = candidates.shape[2];
  HostTensor logits =
      HostTensor::zeros(ElementType::F32, {batch * rows, columns});
  std::vector<double> tokenLogits;
  for (int64_t row = 0; row < batch * rows; ++row) {
    int64_t length = int64_t(lengths.data[row]);
    // Every token of the row (scoreRow's bits, decoded page by page), then
    // the candidates gathered.
    tokenLogits.assign(static_cast<size_t>(length), 0.0);
    scoreRow(q.data.data() + row * heads * dim, w.data.data() + row * heads,
             heads, pages, layout, blockTable, row / rows, length,
             tokenLogits.data());
    for (int64_t c = 0; c < columns; ++c) {
      double t = candidates.data[row * columns + c];
      logits.data[row * columns + c] =
          t >= 0 && t < double(length)
              ? tokenLogits[size_t(t)]
              : std::numeric_limits<double>::quiet_NaN();
    }
  }
  return logits;
}

HostTensor refinePaged(const HostTensor &q, const HostTensor &w,
                       const HostTensor &candidates, const HostTensor &pages,
                       const HostTensor &blockTable, const HostTensor &lengths,
                       int64_t k, const PageLayout &layout) {
  assert(checkRefinePaged(q, w, candidates, pages, blockTable, lengths, k,
                          layout)
             .empty());
  HostTensor logits = refinePagedLogits(q, w, candidates, pages, blockTable,
                                        lengths, layout);
  HostTensor kept = topk(logits, nullptr, k).indices;
  int64_t batch = q.shape[0], rows = q.shape[1], columns = candidates.shape[2];
  HostTensor tokens = HostTensor::zeros(ElementType::I32, {batch, rows, k});
  for (int64_t i = 0; i < tokens.numElements(); ++i) {
    int64_t row = i / k;
    double c = kept.data[i];
    // A padding candidate's logit is NaN; a NaN logit of a real token is
    // kept as that token.
    double t = c < 0 ? -1.0 : candidates.data[row * columns + int64_t(c)];
    tokens.data[i] = t >= 0 && t < lengths.data[row] ? t : -1.0;
  }
  return tokens;
}

//===----------------------------------------------------------------------===//
// append_paged
//===----------------------------------------------------------------------===//

std::string checkAppendPaged(const HostTensor &keys, const HostTensor &scores,
                             const HostTensor &tailKeys,
                             const HostTensor &tailScores,
                             const HostTensor &lengths, const HostTensor *bias,
                             const HostTensor &pages,
                             const HostTensor &blockTable,
                             const CompressOptions &options,
                             const PageLayout &layout) {
  std::string why = checkPages(pages, layout);
  if (!why.empty())
    return why;
  int64_t p = options.poolSize;
  if (keys.rank() != 3 || keys.shape[2] != layout.dim)
    return "keys must be [B, n, D] with D = " + sizeText(layout.dim) +
           ", got " + shapeString(keys.shape);
  int64_t batch = keys.shape[0], count = keys.shape[1], dim = keys.shape[2];
  bool perChannel = scores.rank() == 3;
  std::vector<int64_t> scoreShape = perChannel
                                        ? std::vector<int64_t>{batch, count, dim}
                                        : std::vector<int64_t>{batch, count};
  if (scores.shape != scoreShape)
    return "scores must be [B, n] or [B, n, D] = " + shapeString(scoreShape) +
           ", got " + shapeString(scores.shape);
  if (p < 1)
    return "pool_size must be >= 1, got " + sizeText(p);
  std::vector<int64_t> tailShape = {batch, p - 1, dim};
  if (tailKeys.shape != tailShape || tailKeys.type != keys.type)
    return "tail_keys must be [B, P - 1, D] = " + shapeString(tailShape) +
           " of the keys' type";
  std::vector<int64_t> tailScoreShape =
      perChannel ? tailShape : std::vector<int64_t>{batch, p - 1};
  if (tailScores.shape != tailScoreShape || tailScores.type != scores.type)
    return "tail_scores must be " + shapeString(tailScoreShape) +
           " of the scores' type";
  if (lengths.shape != std::vector<int64_t>{batch})
    return "lengths must be [B] = [" + sizeText(batch) + "], got " +
           shapeString(lengths.shape);
  if (blockTable.rank() != 2 || blockTable.shape[0] != batch)
    return "block_table must be [B, max_pages] with B = " + sizeText(batch) +
           ", got " + shapeString(blockTable.shape);
  // The group arithmetic of one compress call on P keys.
  HostTensor groupKeys{keys.type, {p, dim}, {}};
  HostTensor groupScores{scores.type,
                         perChannel ? std::vector<int64_t>{p, dim}
                                    : std::vector<int64_t>{p},
                         {}};
  why = checkCompress(groupKeys, groupScores, bias, options);
  if (!why.empty())
    return why;
  if (options.quantizedType != layout.codes)
    return "the codes of the pages must be the quantized type";
  int64_t maxPages = blockTable.shape[1];
  if (lengths.data.size() != size_t(batch) ||
      blockTable.data.size() != size_t(batch * maxPages))
    return ""; // shapes only
  double capacity = double(maxPages) * double(layout.entries);
  for (int64_t b = 0; b < batch; ++b) {
    double length = lengths.data[b];
    if (length < 0)
      return "the length of sequence " + sizeText(b) + " must be >= 0, got " +
             sizeText(int64_t(length));
    int64_t groups = (int64_t(length) + count) / p;
    if (double(groups) > capacity)
      return "sequence " + sizeText(b) + " reaches " + sizeText(groups) +
             (p == 1 ? " entries (one per token)" : " pooled entries") +
             ", more than max_pages * E = " +
             sizeText(int64_t(capacity));
    for (int64_t g = int64_t(length) / p; g < groups; ++g) {
      double page = blockTable.data[b * maxPages + g / layout.entries];
      if (page < 0 || page >= double(pages.shape[0]))
        return "block_table[" + sizeText(b) + ", " +
               sizeText(g / layout.entries) + "] = " +
               sizeText(int64_t(page)) + " is not a page id in [0, " +
               sizeText(pages.shape[0]) + ")";
    }
  }
  return "";
}

AppendResult appendPaged(const HostTensor &keys, const HostTensor &scores,
                         const HostTensor &tailKeys,
                         const HostTensor &tailScores,
                         const HostTensor &lengths, const HostTensor *bias,
                         const HostTensor &pages, const HostTensor &blockTable,
                         const CompressOptions &options,
                         const PageLayout &layout) {
  assert(checkAppendPaged(keys, scores, tailKeys, tailScores, lengths, bias,
                          pages, blockTable, options, layout)
             .empty());
  int64_t batch = keys.shape[0], count = keys.shape[1], dim = keys.shape[2];
  int64_t p = options.poolSize, maxPages = blockTable.shape[1];
  // Values per token of the scores: 1 or D.
  int64_t scoreWidth = scores.rank() == 3 ? dim : 1;
  AppendResult result{pages, tailKeys, tailScores};
  for (int64_t b = 0; b < batch; ++b) {
    int64_t length = int64_t(lengths.data[b]), tail = length % p;
    // The tail and the new tokens, in order: tokens length - tail ...
    std::vector<double> bufferKeys, bufferScores;
    auto take = [&](const HostTensor &k, const HostTensor &s, int64_t row) {
      bufferKeys.insert(bufferKeys.end(), k.data.begin() + row * dim,
                        k.data.begin() + (row + 1) * dim);
      bufferScores.insert(bufferScores.end(),
                          s.data.begin() + row * scoreWidth,
                          s.data.begin() + (row + 1) * scoreWidth);
    };
    for (int64_t t = 0; t < tail; ++t)
      take(tailKeys, tailScores, b * (p - 1) + t);
    for (int64_t t = 0; t < count; ++t)
      take(keys, scores, b * count + t);
    int64_t tokens = tail + count, complete = tokens / p;
    int64_t firstGroup = (length - tail) / p;
    for (int64_t i = 0; i < complete; ++i) {
      HostTensor groupKeys{keys.type, {p, dim},
                           {bufferKeys.begin() + i * p * dim,
                            bufferKeys.begin() + (i + 1) * p * dim}};
      HostTensor groupScores{
          scores.type,
          scoreWidth == 1 ? std::vector<int64_t>{p} : std::vector<int64_t>{p, dim},
          {bufferScores.begin() + i * p * scoreWidth,
           bufferScores.begin() + (i + 1) * p * scoreWidth}};
      CompressResult group = compress(groupKeys, groupScores, bias, options);
      int64_t g = firstGroup + i;
      int64_t page = int64_t(blockTable.data[b * maxPages + g / layout.entries]);
      writeEntry(result.pages, layout, page * layout.entries + g % layout.entries,
                 group.q, 0, group.scale.data[0]);
    }
    for (int64_t t = 0; t < tokens - complete * p; ++t) {
      int64_t from = complete * p + t, to = b * (p - 1) + t;
      std::copy(bufferKeys.begin() + from * dim,
                bufferKeys.begin() + (from + 1) * dim,
                result.tailKeys.data.begin() + to * dim);
      std::copy(bufferScores.begin() + from * scoreWidth,
                bufferScores.begin() + (from + 1) * scoreWidth,
                result.tailScores.data.begin() + to * scoreWidth);
    }
  }
  return result;
}

} // namespace indexpool::ref
