//===- CacheChecks.h - A cache's pages and selects against the kernels ----===//
//
// What the cache's tests check after their appends, forks and frees,
// shared by PagedCacheTest (the CPU kernels) and CacheStoreTest (the same
// with a store tier on a redis-server): a sequence's entries equal, byte
// for byte, one compress_paged of its whole history (the property
// docs/serving-layout.md states for append_paged), and every layer's
// select passes the float64 reference's check of select_paged on the
// cache's pages. Keys are recorded as the tests append them (History).
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_UNITTESTS_CACHE_CACHECHECKS_H
#define INDEXPOOL_UNITTESTS_CACHE_CACHECHECKS_H

#include "indexpool/Cache/PagedCache.h"

#include "indexpool/API/Builders.h"
#include "indexpool/API/Compiler.h"
#include "indexpool/API/Reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace indexpool::cache::test {

/// Every key and score a sequence was given, per layer, in order.
struct History {
  std::vector<std::vector<float>> keys, scores; // per layer
};

/// n fresh normal values (never zeros, STYLE.md, Tests).
template <typename Engine>
std::vector<float> randomNormal(Engine &rng, size_t n) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = normal(rng);
  return v;
}

/// Appends one step of n tokens for `batch` (per layer: keys [B, n, D],
/// scores [B, n, W]) to the batch's histories.
inline void recordStep(std::map<SequenceId, History> &histories,
                       const CacheConfig &c,
                       const std::vector<SequenceId> &batch, std::int64_t n,
                       const std::vector<std::vector<float>> &keys,
                       const std::vector<std::vector<float>> &scores) {
  const std::int64_t w = c.scoreWidth();
  for (size_t b = 0; b < batch.size(); ++b) {
    History &h = histories[batch[b]];
    h.keys.resize(size_t(c.layers));
    h.scores.resize(size_t(c.layers));
    for (size_t l = 0; l < keys.size(); ++l) {
      const float *k = keys[l].data() + b * size_t(n * c.dim);
      h.keys[l].insert(h.keys[l].end(), k, k + n * c.dim);
      const float *s = scores[l].data() + b * size_t(n * w);
      h.scores[l].insert(h.scores[l].end(), s, s + n * w);
    }
  }
}

/// The cache's test configuration: 2 layers, D = 32, P = 4, E = 4 (16
/// tokens a page), H = 4, k = 6, 48 device pages.
inline CacheConfig smallConfig() {
  CacheConfig c;
  c.layers = 2;
  c.dim = 32;
  c.poolSize = 4;
  c.pageEntries = 4; // 16 tokens a page
  c.pages = 48;
  c.heads = 4;
  c.k = 6;
  return c;
}

/// Entry i of `actual` (pages of `pageBytes`, E entries each, at slot
/// slots[i]) holds the same D code bytes and 4 scale bytes as in
/// `expected`; a difference is reported as `what` i ("sequence 3 layer 1
/// group" 7).
inline void expectSameEntries(const std::vector<std::int8_t> &actual,
                              const std::vector<std::int8_t> &expected,
                              const std::vector<std::int64_t> &slots,
                              std::int64_t e, std::int64_t d,
                              std::int64_t pageBytes, const std::string &what) {
  for (size_t i = 0; i < slots.size(); ++i) {
    const std::int64_t page = slots[i] / e, entry = slots[i] % e;
    const size_t base = size_t(page * pageBytes);
    const size_t codes = base + size_t(entry * d);
    const size_t scale = base + size_t(e * d + 4 * entry);
    EXPECT_EQ(0, std::memcmp(&actual[codes], &expected[codes], size_t(d)))
        << what << " " << i;
    EXPECT_EQ(0, std::memcmp(&actual[scale], &expected[scale], 4))
        << what << " " << i;
  }
}

/// compress_paged as a cache of `c` runs it (D, P, E, the scores' width,
/// the bias and the temperature), compiled for the CPU into `compress`.
inline void compileCompress(const CacheConfig &c,
                            std::unique_ptr<CpuFunction> &compress) {
  CompressPagedSpec spec;
  spec.dim = c.dim;
  spec.keyType = DType::F32;
  spec.poolSize = c.poolSize;
  spec.perChannelScores = c.perChannelScores;
  spec.bias = c.bias;
  spec.temperature = c.temperature;
  spec.layout.pageEntries = c.pageEntries;
  Status status;
  auto module = buildCompressPaged(spec, status);
  ASSERT_TRUE(module) << status.message();
  CompileOptions options;
  options.threads = 2;
  compress = compileForCpu(*module, spec.name, options, status);
  ASSERT_TRUE(compress) << status.message();
}

/// `s`'s entries in every layer of `cache` equal one compress_paged of
/// `h` (`compress`, from compileCompress of the cache's configuration):
/// each group's codes and scale, byte for byte, at the page and entry its
/// block table gives.
inline void expectPages(const PagedCache &cache, SequenceId s,
                        const History &h, CpuFunction &compress) {
  const CacheConfig &c = cache.config();
  const std::int64_t tokens = cache.sequences().length(s);
  const std::int64_t groups = tokens / c.poolSize;
  const std::vector<PageIndex> &table = cache.sequences().blockTable(s);
  const std::int64_t e = c.pageEntries, d = c.dim;
  for (std::int64_t l = 0; l < c.layers; ++l) {
    ASSERT_EQ(std::int64_t(h.keys[size_t(l)].size()), tokens * d);
    std::vector<std::int64_t> slots(static_cast<size_t>(groups));
    for (std::int64_t g = 0; g < groups; ++g)
      slots[size_t(g)] = std::int64_t(table[size_t(g / e)]) * e + g % e;
    const std::vector<std::int8_t> actual = cache.logicalPages(l);
    std::vector<std::int8_t> expected(actual.size(), 0);
    std::vector<TensorRef> inputs = {
        TensorRef(const_cast<float *>(h.keys[size_t(l)].data()), DType::F32,
                  {tokens, d}),
        TensorRef(const_cast<float *>(h.scores[size_t(l)].data()), DType::F32,
                  c.perChannelScores ? std::vector<std::int64_t>{tokens, d}
                                     : std::vector<std::int64_t>{tokens})};
    if (c.bias != "none")
      inputs.push_back(TensorRef(
          const_cast<float *>(c.biasValues.data()), DType::F32,
          c.bias == "slot" ? std::vector<std::int64_t>{c.poolSize}
                           : std::vector<std::int64_t>{c.poolSize, d}));
    inputs.push_back(TensorRef(expected.data(), DType::I8,
                               {std::int64_t(c.totalPages()), c.pageBytes()}));
    inputs.push_back(TensorRef(slots.data(), DType::I64, {groups}));
    std::vector<TensorRef> outputs = {inputs[inputs.size() - 2]};
    Status status = compress.call(inputs, outputs);
    ASSERT_TRUE(status.ok()) << status.message();
    expectSameEntries(actual, expected, slots, e, d, c.pageBytes(),
                      "sequence " + std::to_string(s) + " layer " +
                          std::to_string(l) + " group");
  }
}

/// A result checked by the float64 reference: one line of the report an
/// output, each saying ok.
inline void expectReference(const Module &module, const std::string &name,
                            const std::vector<TensorRef> &inputs,
                            const std::vector<TensorRef> &outputs) {
  std::vector<std::string> report;
  Status status =
      verifyAgainstReference(module, name, inputs.data(), inputs.size(),
                             outputs.data(), outputs.size(), report);
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(report.size(), outputs.size());
  for (const std::string &line : report)
    EXPECT_NE(line.find("-> ok"), std::string::npos) << line;
}

/// `batch`'s block tables and lengths as select_paged takes them: a row
/// of maxPages a sequence, zero-padded (padding is never read).
struct BatchTables {
  std::int64_t maxPages = 1;
  std::vector<std::int32_t> table, lengths;
};

/// maxPages is the longest block table's, and at least `entries` (the k
/// a select keeps; select_paged wants k <= max_pages * E) in pages.
inline BatchTables batchTables(const PagedCache &cache,
                               const std::vector<SequenceId> &batch,
                               std::int64_t entries) {
  const std::int64_t e = cache.config().pageEntries;
  BatchTables t;
  t.maxPages = std::max<std::int64_t>(1, (entries + e - 1) / e);
  for (SequenceId s : batch)
    t.maxPages = std::max<std::int64_t>(
        t.maxPages, cache.sequences().blockTable(s).size());
  t.table.assign(batch.size() * size_t(t.maxPages), 0);
  for (size_t b = 0; b < batch.size(); ++b) {
    const std::vector<PageIndex> &row = cache.sequences().blockTable(batch[b]);
    std::copy(row.begin(), row.end(),
              t.table.begin() + std::ptrdiff_t(b * size_t(t.maxPages)));
    t.lengths.push_back(std::int32_t(cache.sequences().length(batch[b])));
  }
  return t;
}

/// A select of every layer for `batch` (queries and weights fresh from
/// `rng`), each checked by the float64 reference's select_paged on the
/// cache's pages; each layer's tokens go to `selected` when given.
template <typename Engine>
void expectSelect(PagedCache &cache, const std::vector<SequenceId> &batch,
                  Engine &rng,
                  std::vector<std::vector<std::int32_t>> *selected = nullptr) {
  const CacheConfig &c = cache.config();
  SelectPagedSpec spec;
  spec.batch = -1;
  spec.heads = c.heads;
  spec.dim = c.dim;
  spec.queryType = DType::F32;
  spec.k = c.k;
  spec.poolSize = c.poolSize;
  spec.layout.pageEntries = c.pageEntries;
  Status status;
  auto module = buildSelectPaged(spec, status);
  ASSERT_TRUE(module) << status.message();
  const std::int64_t bsz = std::int64_t(batch.size());
  BatchTables t = batchTables(cache, batch, c.k);
  for (std::int64_t l = 0; l < c.layers; ++l) {
    std::vector<float> q = randomNormal(rng, size_t(bsz * c.heads * c.dim));
    std::vector<float> w = randomNormal(rng, size_t(bsz * c.heads));
    std::vector<std::int32_t> tokens;
    std::string error;
    ASSERT_TRUE(cache.select(batch, l, q.data(), w.data(), tokens, error))
        << error;
    if (selected)
      selected->push_back(tokens);
    std::vector<std::int8_t> pages = cache.logicalPages(l);
    const std::int64_t row = c.k * c.poolSize + c.poolSize - 1;
    std::vector<TensorRef> inputs = {
        TensorRef(q.data(), DType::F32, {bsz, 1, c.heads, c.dim}),
        TensorRef(w.data(), DType::F32, {bsz, 1, c.heads}),
        TensorRef(pages.data(), DType::I8,
                  {std::int64_t(c.totalPages()), c.pageBytes()}),
        TensorRef(t.table.data(), DType::I32, {bsz, t.maxPages}),
        TensorRef(t.lengths.data(), DType::I32, {bsz, 1})};
    std::vector<TensorRef> outputs = {
        TensorRef(tokens.data(), DType::I32, {bsz, 1, row})};
    expectReference(*module, spec.name, inputs, outputs);
  }
}

} // namespace indexpool::cache::test

#endif // INDEXPOOL_UNITTESTS_CACHE_CACHECHECKS_H
