//===- PagedTest.cpp - the paged serving layout, byte for byte ------------===//
//
// The production layout at D = 128, E = 64: a page is 8448 bytes, 64 x 128
// code bytes then 64 f32 scales. The offsets below are written out from
// that statement, not taken from PageLayout, so that a layout bug cannot
// hide behind the same formula on both sides.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Reference/Paged.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

using namespace indexpool::ref;

namespace {

constexpr int64_t kD = 128, kE = 64, kPageBytes = 8448, kP = 4;

/// Pages filled with random bytes: a write that misses its place, or a
/// byte written that should not be, changes something visible.
HostTensor randomPages(int64_t count, std::mt19937_64 &rng) {
  HostTensor pages = randomInt32({count, kPageBytes}, -128, 127, rng);
  pages.type = ElementType::I8;
  return pages;
}

uint8_t byteAt(const HostTensor &pages, int64_t offset) {
  return uint8_t(int8_t(pages.data[size_t(offset)]));
}

float scaleAt(const HostTensor &pages, int64_t offset) {
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i)
    bytes[i] = byteAt(pages, offset + i);
  float value;
  std::memcpy(&value, bytes, 4);
  return value;
}

CompressOptions fp8Options() {
  CompressOptions options;
  options.poolSize = kP;
  options.rotate = true;
  options.quantizedType = ElementType::F8E4M3FN;
  return options;
}

PageLayout productionLayout() { return PageLayout{}; }

TEST(PagedTest, TheProductionPageIs8448Bytes) {
  PageLayout layout = productionLayout();
  EXPECT_EQ(layout.pageBytes(), kPageBytes);
  EXPECT_EQ(layout.codesOffset(5), 5 * kD);
  EXPECT_EQ(layout.scaleOffset(5), kE * kD + 5 * 4);
  layout.scalesFirst = true;
  EXPECT_EQ(layout.codesOffset(5), kE * 4 + 5 * kD);
  EXPECT_EQ(layout.scaleOffset(5), 5 * 4);
  EXPECT_EQ(checkPageLayout(PageLayout{0, 128}),
            "page_entries must be at least 1, got 0");
  EXPECT_EQ((PageLayout{int64_t(1) << 40, int64_t(1) << 40}).pageBytes(), -1);
}

TEST(PagedTest, CompressWritesTheDenseResultAtEachSlot) {
  std::mt19937_64 rng(11);
  // 10 groups and a tail of 3 tokens (not pooled).
  HostTensor keys = randomNormal(ElementType::BF16, {10 * kP + 3, kD}, rng);
  HostTensor scores = randomNormal(ElementType::F32, {10 * kP + 3}, rng);
  HostTensor bias = randomNormal(ElementType::F32, {kP}, rng);
  HostTensor pages = randomPages(3, rng);
  // Slots spread over the 3 pages, not in order; groups 2 and 7 skipped.
  HostTensor slots{ElementType::I32, {10},
                   {130, 5, -1, 64, 191, 0, 63, -1, 128, 100}};
  CompressOptions options = fp8Options();
  PageLayout layout = productionLayout();
  ASSERT_EQ(checkCompressPaged(keys, scores, &bias, pages, slots, options,
                               layout),
            "");
  HostTensor written =
      compressPaged(keys, scores, &bias, pages, slots, options, layout);
  CompressResult dense = compress(keys, scores, &bias, options);

  std::vector<bool> touched(size_t(3 * kPageBytes), false);
  for (int64_t g = 0; g < 10; ++g) {
    int64_t slot = int64_t(slots.data[g]);
    if (slot < 0)
      continue;
    int64_t page = slot / kE, entry = slot % kE;
    int64_t codes = page * kPageBytes + entry * kD;
    int64_t scale = page * kPageBytes + kE * kD + entry * 4;
    for (int64_t d = 0; d < kD; ++d) {
      EXPECT_EQ(byteAt(written, codes + d),
                encodeF8E4M3FN(dense.q.data[g * kD + d]))
          << "group " << g << " d " << d;
      touched[size_t(codes + d)] = true;
    }
    EXPECT_EQ(double(scaleAt(written, scale)), dense.scale.data[g]) << g;
    for (int i = 0; i < 4; ++i)
      touched[size_t(scale + i)] = true;
  }
  for (size_t i = 0; i < touched.size(); ++i)
    if (!touched[i])
      ASSERT_EQ(written.data[i], pages.data[i]) << "byte " << i << " changed";
}

TEST(PagedTest, Int8CodesAndScalesFirst) {
  std::mt19937_64 rng(12);
  HostTensor keys = randomNormal(ElementType::F32, {2 * kP, kD}, rng);
  HostTensor scores = randomNormal(ElementType::F32, {2 * kP, kD}, rng);
  HostTensor pages = randomPages(1, rng);
  HostTensor slots{ElementType::I32, {2}, {3, 1}};
  CompressOptions options = fp8Options();
  options.quantizedType = ElementType::I8;
  options.rotate = false;
  PageLayout layout = productionLayout();
  layout.codes = ElementType::I8;
  layout.scalesFirst = true;
  HostTensor written =
      compressPaged(keys, scores, nullptr, pages, slots, options, layout);
  CompressResult dense = compress(keys, scores, nullptr, options);
  for (int64_t g = 0; g < 2; ++g) {
    int64_t entry = int64_t(slots.data[g]);
    for (int64_t d = 0; d < kD; ++d)
      EXPECT_EQ(written.data[size_t(kE * 4 + entry * kD + d)],
                dense.q.data[g * kD + d]);
    EXPECT_EQ(double(scaleAt(written, entry * 4)), dense.scale.data[g]);
  }
}

// i4: two codes a byte, code 2i in the low nibble; E = 2 entries of D = 4
// are 2 x 2 code bytes, then the scales: 2 * (4 / 2 + 4) = 12 bytes.
TEST(PagedTest, Int4CodesAreTwoAByte) {
  PageLayout layout{2, 4, ElementType::I4, /*scalesFirst=*/false};
  EXPECT_EQ(layout.codeBytes(), 2);
  EXPECT_EQ(layout.pageBytes(), 12);
  EXPECT_EQ(layout.codesOffset(1), 2);
  EXPECT_EQ(layout.scaleOffset(1), 8);
  HostTensor pages = HostTensor::zeros(ElementType::I8, {1, 12});
  HostTensor codes{ElementType::I4, {2, 4}, {1, -2, 7, -7, 0, -1, 3, -8}};
  writeEntry(pages, layout, 1, codes, 0, 0.5);
  writeEntry(pages, layout, 0, codes, 1, 2.0);
  // 1 | (-2 & 15) << 4 = 0xE1; 7 | (-7 & 15) << 4 = 0x97; 0 | 0xF0 = 0xF0;
  // 3 | 0x80 = 0x83.
  EXPECT_EQ(byteAt(pages, 2), 0xE1);
  EXPECT_EQ(byteAt(pages, 3), 0x97);
  EXPECT_EQ(byteAt(pages, 0), 0xF0);
  EXPECT_EQ(byteAt(pages, 1), 0x83);
  EXPECT_EQ(scaleAt(pages, 4), 2.0f);
  EXPECT_EQ(scaleAt(pages, 8), 0.5f);
  HostTensor table{ElementType::I32, {1, 1}, {0}};
  Entries back = gatherEntries(pages, layout, table, 0, 2);
  EXPECT_EQ(back.codes.data, (std::vector<double>{0, -1, 3, -8, 1, -2, 7, -7}));
  EXPECT_EQ(back.scale.data, (std::vector<double>{2.0, 0.5}));
  // An odd D has no i4 layout.
  EXPECT_NE(checkPageLayout(PageLayout{2, 5, ElementType::I4, false}), "");
}

TEST(PagedTest, CompressRefusesBadSlots) {
  std::mt19937_64 rng(13);
  HostTensor keys = randomNormal(ElementType::BF16, {2 * kP, kD}, rng);
  HostTensor scores = randomNormal(ElementType::F32, {2 * kP}, rng);
  HostTensor pages = randomPages(2, rng);
  CompressOptions options = fp8Options();
  PageLayout layout = productionLayout();
  auto why = [&](std::vector<double> slots, std::vector<int64_t> shape = {2}) {
    return checkCompressPaged(keys, scores, nullptr, pages,
                              HostTensor{ElementType::I32, shape, slots},
                              options, layout);
  };
  EXPECT_EQ(why({0, 127}), "");
  EXPECT_EQ(why({0, 128}), "slot 128 of group 1 is outside the pages (2 "
                           "pages of 64 entries)");
  EXPECT_EQ(why({7, 7}), "slot 7 is written twice (group 1)");
  EXPECT_EQ(why({-1, -1}), "");
  EXPECT_EQ(why({0, 1, 2}, {3}),
            "slots must be [G] = [2] (one per group of P keys), got [3]");
  HostTensor narrow = randomPages(1, rng);
  narrow.shape = {2, kPageBytes / 2};
  EXPECT_EQ(checkCompressPaged(keys, scores, nullptr, narrow,
                               HostTensor{ElementType::I32, {2}, {0, 1}},
                               options, layout),
            "pages must be [pages, E * (D + 4)] = [pages, 8448] of i8, got "
            "[2, 4224] of i8");
}

/// Sequences compressed densely, then scattered into shuffled pages through
/// their block tables; sequences 0 and 1 share their first page (a common
/// prefix, as serving engines share a system prompt).
struct PagedCache {
  HostTensor pages;
  HostTensor blockTable;             // [B, maxPages]
  std::vector<CompressResult> dense; // per sequence: codes [n, D], scales
};

PagedCache buildCache(const std::vector<int64_t> &tokens, int64_t maxPages,
                      std::mt19937_64 &rng) {
  int64_t batch = int64_t(tokens.size()), totalPages = batch * maxPages + 3;
  PagedCache cache{randomPages(totalPages, rng),
                   HostTensor::zeros(ElementType::I32, {batch, maxPages}),
                   {}};
  std::vector<int64_t> ids(static_cast<size_t>(totalPages));
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), rng);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < maxPages; ++i)
      cache.blockTable.data[size_t(b * maxPages + i)] =
          double(ids[size_t(b * maxPages + i)]);
  HostTensor prefixKeys =
      randomNormal(ElementType::BF16, {kE * kP, kD}, rng);
  for (int64_t b = 0; b < batch; ++b) {
    HostTensor keys = randomNormal(ElementType::BF16, {tokens[b], kD}, rng);
    HostTensor scores = randomNormal(ElementType::F32, {tokens[b]}, rng);
    int64_t prefix = std::min(kE * kP, tokens[b]);
    if (b <= 1) {
      // The same keys and scores for the first E groups.
      std::copy(prefixKeys.data.begin(), prefixKeys.data.begin() + prefix * kD,
                keys.data.begin());
      for (int64_t t = 0; t < prefix; ++t)
        scores.data[size_t(t)] = double(t % 7) / 8;
    }
    if (b == 1)
      // Shares page 0 of sequence 0.
      cache.blockTable.data[size_t(maxPages)] = cache.blockTable.data[0];
    CompressOptions options = fp8Options();
    int64_t groups = tokens[b] / kP;
    HostTensor slots = HostTensor::zeros(ElementType::I32, {groups});
    for (int64_t g = 0; g < groups; ++g)
      slots.data[size_t(g)] =
          cache.blockTable.data[size_t(b * maxPages + g / kE)] * kE + g % kE;
    if (b == 1)
      // The shared page is already written by sequence 0.
      for (int64_t g = 0; g < std::min<int64_t>(groups, kE); ++g)
        slots.data[size_t(g)] = -1;
    PageLayout layout = productionLayout();
    EXPECT_EQ(checkCompressPaged(keys, scores, nullptr, cache.pages, slots,
                                 options, layout),
              "");
    cache.pages = compressPaged(keys, scores, nullptr, cache.pages, slots,
                                options, layout);
    cache.dense.push_back(compress(keys, scores, nullptr, options));
  }
  return cache;
}

TEST(PagedTest, SelectEqualsDenseSelectOverTheSequencePlusItsTail) {
  std::mt19937_64 rng(14);
  // Lengths in tokens: 0, T < P, T = P, and long ones with tails.
  std::vector<int64_t> tokens = {kE * kP + 9, 3 * kE * kP + 2, kP, 3, 0,
                                 kE * kP * 2};
  int64_t batch = int64_t(tokens.size()), rows = 2, heads = 4, maxPages = 3;
  int64_t k = 16;
  PagedCache cache = buildCache(tokens, maxPages, rng);
  HostTensor q = randomNormal(ElementType::BF16, {batch, rows, heads, kD}, rng);
  HostTensor w = randomNormal(ElementType::F32, {batch, rows, heads}, rng);
  // Query row 0 sees the whole sequence, row 1 one token less (next_n = 2).
  HostTensor lengths = HostTensor::zeros(ElementType::I32, {batch, rows});
  for (int64_t b = 0; b < batch; ++b) {
    lengths.data[size_t(b * rows)] = double(tokens[b]);
    lengths.data[size_t(b * rows + 1)] = double(std::max<int64_t>(tokens[b] - 1, 0));
  }
  PageLayout layout = productionLayout();
  ASSERT_EQ(checkSelectPaged(q, w, cache.pages, cache.blockTable, lengths, k,
                             kP, layout),
            "");
  HostTensor got = selectPaged(q, w, cache.pages, cache.blockTable, lengths,
                               k, kP, layout);
  int64_t width = k * kP + kP - 1;
  ASSERT_EQ(got.shape, (std::vector<int64_t>{batch, rows, width}));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t s = 0; s < rows; ++s) {
      int64_t length = int64_t(lengths.data[size_t(b * rows + s)]);
      int64_t n = length / kP;
      const CompressResult &dense = cache.dense[size_t(b)];
      HostTensor keys{dense.q.type, {n, kD},
                      {dense.q.data.begin(), dense.q.data.begin() + n * kD}};
      HostTensor scales{ElementType::F32, {n},
                        {dense.scale.data.begin(),
                         dense.scale.data.begin() + n}};
      int64_t row = b * rows + s;
      HostTensor query{q.type, {1, heads, kD},
                       {q.data.begin() + row * heads * kD,
                        q.data.begin() + (row + 1) * heads * kD}};
      HostTensor weights{w.type, {1, heads},
                         {w.data.begin() + row * heads,
                          w.data.begin() + (row + 1) * heads}};
      HostTensor want = select(query, weights, keys, &scales, nullptr, k, kP);
      for (int64_t j = 0; j < k * kP; ++j)
        ASSERT_EQ(got.data[size_t(row * width + j)], want.data[size_t(j)])
            << "b " << b << " s " << s << " j " << j;
      for (int64_t t = 0; t < kP - 1; ++t) {
        double tail = n * kP + t < length ? double(n * kP + t) : -1;
        ASSERT_EQ(got.data[size_t(row * width + k * kP + t)], tail)
            << "b " << b << " s " << s << " tail " << t;
      }
    }
  // Length 0 selects nothing; T = 3 < P only its 3 tail tokens.
  const double *empty = got.data.data() + 4 * rows * width;
  EXPECT_TRUE(std::all_of(empty, empty + width, [](double v) { return v == -1; }));
  const double *short3 = got.data.data() + 3 * rows * width;
  EXPECT_EQ(std::count(short3, short3 + width, -1.0), width - 3);
}

// refine_paged on a tier whose entries are the pooled cache's (a tier is
// any paged cache read one entry per token): per query row, dense refine
// over the row's gathered entries with the same candidates.
TEST(PagedTest, RefineEqualsDenseRefineOverTheGatheredEntries) {
  std::mt19937_64 rng(26);
  std::vector<int64_t> tokens = {kE * kP + 9, 3 * kE * kP, kP, 0};
  int64_t batch = int64_t(tokens.size()), rows = 2, heads = 4, maxPages = 3;
  int64_t columns = 40, k = 12;
  PagedCache cache = buildCache(tokens, maxPages, rng);
  HostTensor q = randomNormal(ElementType::BF16, {batch, rows, heads, kD}, rng);
  HostTensor w = randomNormal(ElementType::F32, {batch, rows, heads}, rng);
  // Lengths in entries: all of the sequence's, then one less.
  HostTensor lengths = HostTensor::zeros(ElementType::I32, {batch, rows});
  HostTensor candidates =
      HostTensor::zeros(ElementType::I32, {batch, rows, columns});
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t s = 0; s < rows; ++s) {
      int64_t n = std::max<int64_t>(tokens[b] / kP - s, 0);
      lengths.data[size_t(b * rows + s)] = double(n);
      // Ids in [-1, n + 3): padding, tokens beyond the length, duplicates.
      std::uniform_int_distribution<int64_t> id(-1, n + 2);
      for (int64_t c = 0; c < columns; ++c)
        candidates.data[size_t((b * rows + s) * columns + c)] = double(id(rng));
    }
  PageLayout layout = productionLayout();
  ASSERT_EQ(checkRefinePaged(q, w, candidates, cache.pages, cache.blockTable,
                             lengths, k, layout),
            "");
  HostTensor got = refinePaged(q, w, candidates, cache.pages,
                               cache.blockTable, lengths, k, layout);
  ASSERT_EQ(got.shape, (std::vector<int64_t>{batch, rows, k}));
  int64_t kept = 0;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t s = 0; s < rows; ++s) {
      int64_t row = b * rows + s;
      int64_t n = int64_t(lengths.data[size_t(row)]);
      const CompressResult &dense = cache.dense[size_t(b)];
      HostTensor keys{dense.q.type, {n, kD},
                      {dense.q.data.begin(), dense.q.data.begin() + n * kD}};
      HostTensor scales{ElementType::F32, {n},
                        {dense.scale.data.begin(),
                         dense.scale.data.begin() + n}};
      HostTensor query{q.type, {1, heads, kD},
                       {q.data.begin() + row * heads * kD,
                        q.data.begin() + (row + 1) * heads * kD}};
      HostTensor weights{w.type, {1, heads},
                         {w.data.begin() + row * heads,
                          w.data.begin() + (row + 1) * heads}};
      HostTensor rowCandidates{
          ElementType::I32, {1, columns},
          {candidates.data.begin() + row * columns,
           candidates.data.begin() + (row + 1) * columns}};
      HostTensor want = refine(query, weights, rowCandidates, keys, &scales, k);
      for (int64_t j = 0; j < k; ++j) {
        ASSERT_EQ(got.data[size_t(row * k + j)], want.data[size_t(j)])
            << "b " << b << " s " << s << " j " << j;
        kept += want.data[size_t(j)] >= 0;
      }
    }
  // Not a vacuous comparison: most slots hold a token.
  EXPECT_GT(kept, batch * rows * k / 2);
  // k above C and candidates of another batch are refused.
  EXPECT_NE(checkRefinePaged(q, w, candidates, cache.pages, cache.blockTable,
                             lengths, columns + 1, layout),
            "");
  HostTensor narrow = HostTensor::zeros(ElementType::I32, {batch, 1, columns});
  EXPECT_NE(checkRefinePaged(q, w, narrow, cache.pages, cache.blockTable,
                             lengths, k, layout),
            "");
}

TEST(PagedTest, SelectRefusesBadTablesAndLengths) {
  std::mt19937_64 rng(15);
  PagedCache cache = buildCache({kE * kP, kP}, 2, rng);
  HostTensor q = randomNormal(ElementType::BF16, {2, 1, 2, kD}, rng);
  HostTensor w = randomNormal(ElementType::F32, {2, 1, 2}, rng);
  PageLayout layout = productionLayout();
  HostTensor lengths{ElementType::I32, {2, 1}, {double(kE * kP), double(kP)}};
  EXPECT_EQ(checkSelectPaged(q, w, cache.pages, cache.blockTable, lengths, 4,
                             kP, layout),
            "");
  HostTensor beyond = lengths;
  // 128 entries and a tail of 3 fit two pages; 129 entries do not.
  beyond.data[1] = double(2 * kE * kP + 3);
  EXPECT_EQ(checkSelectPaged(q, w, cache.pages, cache.blockTable, beyond, 4,
                             kP, layout),
            "");
  beyond.data[1] = double(2 * kE * kP + kP);
  EXPECT_EQ(checkSelectPaged(q, w, cache.pages, cache.blockTable, beyond, 4,
                             kP, layout),
            "the length 516 of query row (1, 0) needs 129 pooled entries, "
            "more than max_pages * E = 128");
  beyond.data[0] = -1;
  EXPECT_EQ(checkSelectPaged(q, w, cache.pages, cache.blockTable, beyond, 4,
                             kP, layout),
            "the length of query row (0, 0) must be >= 0, got -1");
  HostTensor table = cache.blockTable;
  table.data[2] = -3; // sequence 1's first page
  EXPECT_EQ(checkSelectPaged(q, w, cache.pages, table, lengths, 4, kP, layout),
            "block_table[1, 0] = -3 is not a page id in [0, 7)");
  // A page id after the pages a length uses is never read.
  table = cache.blockTable;
  table.data[3] = 1000;
  EXPECT_EQ(checkSelectPaged(q, w, cache.pages, table, lengths, 4, kP, layout),
            "");
}

/// Rows [from, to) of a [T, ...] tensor.
HostTensor rows(const HostTensor &t, int64_t from, int64_t to) {
  int64_t width = t.numElements() / t.shape[0];
  std::vector<int64_t> shape = t.shape;
  shape[0] = to - from;
  return {t.type, shape,
          {t.data.begin() + from * width, t.data.begin() + to * width}};
}

/// Slots of groups [0, G) of sequence b through its block table.
HostTensor slotsOf(const HostTensor &table, int64_t b, int64_t groups) {
  HostTensor slots = HostTensor::zeros(ElementType::I32, {groups});
  int64_t maxPages = table.shape[1];
  for (int64_t g = 0; g < groups; ++g)
    slots.data[size_t(g)] =
        table.data[size_t(b * maxPages + g / kE)] * kE + g % kE;
  return slots;
}

/// The same double, NaN equal to NaN, +0 not equal to -0.
bool sameBits(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) ||
         (a == b && std::signbit(a) == std::signbit(b));
}

// selectPaged scores a page's entries side by side, without overflowLikeF32
// where no value can overflow: its logits must be score's, bit for bit, over
// pages of random bytes (NaN codes, scales up to 3e38, infinite and NaN
// ones), queries that overflow f32 in one head and hold a NaN in another.
TEST(PagedTest, SelectLogitsAreScoresBitForBit) {
  std::mt19937_64 rng(16);
  PageLayout i8Layout{16, 32, ElementType::I8, /*scalesFirst=*/true};
  PageLayout i4Layout{16, 32, ElementType::I4, /*scalesFirst=*/false};
  for (const PageLayout &layout : {productionLayout(), i8Layout, i4Layout}) {
    int64_t batch = 2, rows = 2, heads = 3, maxPages = 3, dim = layout.dim;
    HostTensor pages = randomInt32({5, layout.pageBytes()}, -128, 127, rng);
    pages.type = ElementType::I8;
    // Pages 0 to 2 without NaN codes (0x7F, 0xFF): they take the fast loop.
    for (int64_t page = 0; page < 3; ++page)
      for (int64_t j = 0; j < layout.entries * layout.codeBytes(); ++j) {
        double &byte = pages.data[size_t(page * layout.pageBytes() +
                                         layout.codesOffset(0) + j)];
        if ((int64_t(byte) & 0x7F) == 0x7F)
          byte -= 1;
      }
    HostTensor table{ElementType::I32, {batch, maxPages}, {4, 0, 2, 1, 3, 4}};
    HostTensor q =
        randomNormal(ElementType::BF16, {batch, rows, heads, dim}, rng);
    for (int64_t d = 0; d < dim; ++d)
      q.data[size_t(heads * dim + d)] *= 0x1p120; // row 1, head 0
    q.data[size_t(2 * heads * dim + dim + 5)] = std::nan(""); // row 2, head 1
    HostTensor w = randomNormal(ElementType::F32, {batch, rows, heads}, rng);
    int64_t e = layout.entries;
    // Whole tables, part of a page, one entry, tail only.
    HostTensor lengths{ElementType::I32,
                       {batch, rows},
                       {double(3 * e * kP), double((e + 5) * kP + 3),
                        double(kP), 2}};
    ASSERT_EQ(checkSelectPaged(q, w, pages, table, lengths, 8, kP, layout),
              "");
    PagedLogits got =
        selectPagedLogits(q, w, pages, table, lengths, kP, layout);
    ASSERT_EQ(got.logits.shape, (std::vector<int64_t>{batch * rows, 3 * e}));
    int64_t nonFinite = 0;
    for (int64_t row = 0; row < batch * rows; ++row) {
      int64_t count = int64_t(lengths.data[size_t(row)]) / kP;
      ASSERT_EQ(got.valid.data[size_t(row)], double(count));
      Entries entries = gatherEntries(pages, layout, table, row / rows, count);
      HostTensor query{q.type, {1, heads, dim},
                       {q.data.begin() + row * heads * dim,
                        q.data.begin() + (row + 1) * heads * dim}};
      HostTensor weights{w.type, {1, heads},
                         {w.data.begin() + row * heads,
                          w.data.begin() + (row + 1) * heads}};
      HostTensor want = score(query, weights, entries.codes, &entries.scale);
      for (int64_t j = 0; j < count; ++j) {
        double a = got.logits.data[size_t(row * 3 * e + j)];
        ASSERT_TRUE(sameBits(a, want.data[size_t(j)]))
            << "row " << row << " entry " << j << ": " << a << ", score "
            << want.data[size_t(j)];
        nonFinite += !std::isfinite(a);
      }
    }
    // The special values were reached, not only finite logits.
    EXPECT_GT(nonFinite, 0);
  }
}

TEST(PagedTest, PrefillThenAppendsEqualsOneCompressOfTheWholeSequence) {
  std::mt19937_64 rng(16);
  // Prefill lengths: empty, T < P, T = P, a tail, page boundaries, long.
  std::vector<int64_t> prefill = {0, 1, 3, 4, 5, 255, 256, 700};
  int64_t batch = int64_t(prefill.size()), maxPages = 8, steps = 1000;
  // Most steps append one token per sequence; every 97th appends 5.
  std::vector<int64_t> perStep(size_t(steps), 1);
  for (int64_t i = 96; i < steps; i += 97)
    perStep[size_t(i)] = 5;
  int64_t appended = std::accumulate(perStep.begin(), perStep.end(), int64_t(0));
  HostTensor table = HostTensor::zeros(ElementType::I32, {batch, maxPages});
  std::vector<int64_t> ids(static_cast<size_t>(batch * maxPages));
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), rng);
  for (size_t i = 0; i < ids.size(); ++i)
    table.data[i] = double(ids[i]);
  HostTensor initial = randomPages(batch * maxPages, rng);
  HostTensor bias = randomNormal(ElementType::F32, {kP}, rng);
  CompressOptions options = fp8Options();
  PageLayout layout = productionLayout();

  // Whole sequences, bf16 keys and scores (the tail keeps their type).
  std::vector<HostTensor> keys, scores;
  for (int64_t b = 0; b < batch; ++b) {
    keys.push_back(
        randomNormal(ElementType::BF16, {prefill[b] + appended, kD}, rng));
    scores.push_back(
        randomNormal(ElementType::BF16, {prefill[b] + appended}, rng));
  }

  // Prefill: one compress per sequence, the tail kept aside.
  HostTensor pages = initial;
  HostTensor tailKeys = randomNormal(ElementType::BF16, {batch, kP - 1, kD}, rng);
  HostTensor tailScores = randomNormal(ElementType::BF16, {batch, kP - 1}, rng);
  HostTensor lengths = HostTensor::zeros(ElementType::I32, {batch});
  for (int64_t b = 0; b < batch; ++b) {
    int64_t t = prefill[b], groups = t / kP;
    pages = compressPaged(rows(keys[b], 0, t), rows(scores[b], 0, t), &bias,
                          pages, slotsOf(table, b, groups), options, layout);
    for (int64_t i = 0; i < t % kP; ++i) {
      int64_t token = groups * kP + i;
      std::copy(keys[b].data.begin() + token * kD,
                keys[b].data.begin() + (token + 1) * kD,
                tailKeys.data.begin() + (b * (kP - 1) + i) * kD);
      tailScores.data[size_t(b * (kP - 1) + i)] = scores[b].data[size_t(token)];
    }
    lengths.data[size_t(b)] = double(t);
  }

  // Decode: every step appends its tokens to every sequence.
  for (int64_t step = 0; step < steps; ++step) {
    int64_t n = perStep[size_t(step)];
    HostTensor newKeys = HostTensor::zeros(ElementType::BF16, {batch, n, kD});
    HostTensor newScores = HostTensor::zeros(ElementType::BF16, {batch, n});
    for (int64_t b = 0; b < batch; ++b) {
      int64_t from = int64_t(lengths.data[size_t(b)]);
      std::copy(keys[b].data.begin() + from * kD,
                keys[b].data.begin() + (from + n) * kD,
                newKeys.data.begin() + b * n * kD);
      std::copy(scores[b].data.begin() + from, scores[b].data.begin() + from + n,
                newScores.data.begin() + b * n);
    }
    ASSERT_EQ(checkAppendPaged(newKeys, newScores, tailKeys, tailScores,
                               lengths, &bias, pages, table, options, layout),
              "")
        << "step " << step;
    AppendResult next = appendPaged(newKeys, newScores, tailKeys, tailScores,
                                    lengths, &bias, pages, table, options,
                                    layout);
    pages = std::move(next.pages);
    tailKeys = std::move(next.tailKeys);
    tailScores = std::move(next.tailScores);
    for (double &length : lengths.data)
      length += double(n);
  }

  // One compress of each whole sequence into the same initial pages.
  HostTensor whole = initial;
  for (int64_t b = 0; b < batch; ++b) {
    int64_t t = prefill[b] + appended;
    whole = compressPaged(keys[b], scores[b], &bias, whole,
                          slotsOf(table, b, t / kP), options, layout);
    for (int64_t i = 0; i < t % kP; ++i)
      for (int64_t d = 0; d < kD; ++d)
        ASSERT_EQ(tailKeys.data[size_t((b * (kP - 1) + i) * kD + d)],
                  keys[b].data[size_t((t / kP * kP + i) * kD + d)])
            << "tail of sequence " << b;
  }
  ASSERT_EQ(pages.data.size(), whole.data.size());
  for (size_t i = 0; i < whole.data.size(); ++i)
    ASSERT_EQ(pages.data[i], whole.data[i]) << "byte " << i;
  // The comparison is not between unchanged pages: most entries were written.
  size_t changed = 0;
  for (size_t i = 0; i < whole.data.size(); ++i)
    changed += whole.data[i] != initial.data[i];
  EXPECT_GT(changed, whole.data.size() / 4);
}

TEST(PagedTest, AppendRefusesTablesTooShort) {
  std::mt19937_64 rng(17);
  HostTensor keys = randomNormal(ElementType::BF16, {1, 2, kD}, rng);
  HostTensor scores = randomNormal(ElementType::BF16, {1, 2}, rng);
  HostTensor tailKeys = randomNormal(ElementType::BF16, {1, kP - 1, kD}, rng);
  HostTensor tailScores = randomNormal(ElementType::BF16, {1, kP - 1}, rng);
  HostTensor pages = randomPages(2, rng);
  HostTensor table{ElementType::I32, {1, 1}, {1}};
  CompressOptions options = fp8Options();
  PageLayout layout = productionLayout();
  auto why = [&](double length) {
    return checkAppendPaged(keys, scores, tailKeys, tailScores,
                            HostTensor{ElementType::I32, {1}, {length}},
                            nullptr, pages, table, options, layout);
  };
  // 254 + 2 tokens fill the 64 entries of the one page.
  EXPECT_EQ(why(kE * kP - 2), "");
  EXPECT_EQ(why(kE * kP + 2), "sequence 0 reaches 65 pooled entries, more "
                              "than max_pages * E = 64");
  EXPECT_EQ(why(-4), "the length of sequence 0 must be >= 0, got -4");
  table.data[0] = 2;
  EXPECT_EQ(why(2), "block_table[0, 0] = 2 is not a page id in [0, 2)");
  // No group completes: the table is not read.
  EXPECT_EQ(why(1), "");
}

} // namespace
