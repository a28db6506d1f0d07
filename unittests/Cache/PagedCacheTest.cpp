//===- PagedCacheTest.cpp - The cache through the CPU kernels -------------===//
//
// Sequences added, forked and freed between decode steps of random keys
// (never zeros); afterwards every live sequence's pages hold, entry for
// entry and byte for byte, what one compress_paged of its whole history
// writes (the property docs/serving-layout.md states for append_paged),
// a fork's appends never touch its parent's entries, and every select
// passes the float64 reference's check. With a token tier (refine) each
// sequence's token entries equal one compress_paged pool_size = 1 of its
// history too, and each select's two stages pass the reference: the
// select_paged of C * k entries, then refine_paged over its candidates.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/BackgroundCompressor.h"
#include "indexpool/Cache/Snapshot.h"
#include "indexpool/CacheCpu/CpuCacheKernels.h"

#include "indexpool/API/Builders.h"
#include "indexpool/API/Compiler.h"
#include "indexpool/API/Reference.h"

#include "CacheChecks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sys/resource.h>
#include <unistd.h>
#include <xxhash.h>

using namespace indexpool;
using namespace indexpool::cache;
using namespace indexpool::cache::test;

namespace {

class PagedCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    auto kernels = makeCpuCacheKernels(config, 2, error);
    ASSERT_TRUE(kernels) << error;
    cache = PagedCache::create(config, std::move(kernels), error);
    ASSERT_TRUE(cache) << error;
  }

  std::vector<float> random(size_t n) { return randomNormal(rng, n); }

  /// The bytes of a snapshot of the cache written to `path` (empty when
  /// writing fails; the test then fails on its size).
  std::vector<char> snapshotBytes(const std::string &path,
                                  std::uint64_t generation) {
    std::string error;
    EXPECT_TRUE(writeSnapshot(*cache, path, generation, error)) << error;
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), {});
  }

  /// One decode step of n tokens for `batch`, recorded in the histories.
  void step(const std::vector<SequenceId> &batch, std::int64_t n) {
    std::vector<std::vector<float>> keys, scores;
    std::vector<const float *> keyPtrs, scorePtrs;
    for (std::int64_t l = 0; l < config.layers; ++l) {
      keys.push_back(random(batch.size() * size_t(n * config.dim)));
      scores.push_back(random(batch.size() * size_t(n * config.scoreWidth())));
    }
    for (size_t l = 0; l < keys.size(); ++l) {
      keyPtrs.push_back(keys[l].data());
      scorePtrs.push_back(scores[l].data());
    }
    std::string error;
    ASSERT_TRUE(cache->append(batch, n, keyPtrs, scorePtrs, error)) << error;
    recordStep(histories, config, batch, n, keys, scores);
  }

  /// The sequence's entries equal one compress_paged of its history.
  void checkPages(SequenceId s) {
    std::unique_ptr<CpuFunction> compress;
    compileCompress(cache->config(), compress);
    if (compress)
      expectPages(*cache, s, histories[s], *compress);
  }

  /// The sequence's token-tier entries (refine) equal one compress_paged
  /// pool_size = 1 of its history: token t at page table[t / (P E)], entry
  /// t % (P E), of stored layer L + l.
  void checkTokens(SequenceId s) {
    ASSERT_GT(config.refine, 0);
    const History &h = histories[s];
    const std::int64_t tokens = cache->sequences().length(s);
    const std::vector<PageIndex> &table = cache->sequences().blockTable(s);
    const std::int64_t e = config.poolSize * config.pageEntries, d = config.dim,
                       pageBytes = config.tokenPageBytes();
    ASSERT_GE(std::int64_t(table.size()) * e, tokens)
        << "sequence " << s << ": its pages hold every token";
    CompressPagedSpec spec;
    spec.dim = d;
    spec.keyType = DType::F32;
    spec.poolSize = 1;
    spec.perChannelScores = config.perChannelScores;
    spec.layout.pageEntries = e;
    Status status;
    auto module = buildCompressPaged(spec, status);
    ASSERT_TRUE(module) << status.message();
    CompileOptions options;
    options.threads = 2;
    auto compress = compileForCpu(*module, spec.name, options, status);
    ASSERT_TRUE(compress) << status.message();
    std::vector<std::int64_t> slots(static_cast<size_t>(tokens));
    for (std::int64_t t = 0; t < tokens; ++t)
      slots[size_t(t)] = std::int64_t(table[size_t(t / e)]) * e + t % e;
    for (std::int64_t l = 0; l < config.layers; ++l) {
      ASSERT_EQ(std::int64_t(h.keys[size_t(l)].size()), tokens * d);
      const std::vector<std::int8_t> actual =
          cache->logicalPages(config.layers + l);
      ASSERT_EQ(actual.size(), size_t(config.totalPages() * pageBytes));
      std::vector<std::int8_t> expected(actual.size(), 0);
      std::vector<TensorRef> inputs = {
          TensorRef(const_cast<float *>(h.keys[size_t(l)].data()), DType::F32,
                    {tokens, d}),
          TensorRef(const_cast<float *>(h.scores[size_t(l)].data()),
                    DType::F32,
                    config.perChannelScores ? std::vector<std::int64_t>{tokens, d}
                                            : std::vector<std::int64_t>{tokens}),
          TensorRef(expected.data(), DType::I8,
                    {std::int64_t(config.totalPages()), pageBytes}),
          TensorRef(slots.data(), DType::I64, {tokens})};
      std::vector<TensorRef> outputs = {inputs[2]};
      status = compress->call(inputs, outputs);
      ASSERT_TRUE(status.ok()) << status.message();
      expectSameEntries(actual, expected, slots, e, d, pageBytes,
                        "sequence " + std::to_string(s) + " layer " +
                            std::to_string(l) + " token");
    }
  }

  /// A select of every layer for `batch`, checked by the float64 reference.
  void checkSelect(const std::vector<SequenceId> &batch) {
    if (config.refine > 0)
      return checkRefineSelect(batch);
    expectSelect(*cache, batch, rng);
  }

  /// checkSelect with a token tier: the first stage (select_paged keeping
  /// C * k entries, run here on the cache's pages by id, the kernel the
  /// cache runs) passes the reference, and the cache's tokens are what
  /// the reference's refine_paged keeps of those candidates on the token
  /// tier.
  void checkRefineSelect(const std::vector<SequenceId> &batch) {
    const std::int64_t p = config.poolSize, c = config.selectEntries() * p + p - 1,
                       row = config.k * p + p - 1;
    SelectPagedSpec first;
    first.batch = -1;
    first.heads = config.heads;
    first.dim = config.dim;
    first.queryType = DType::F32;
    first.k = config.selectEntries();
    first.poolSize = p;
    first.layout.pageEntries = config.pageEntries;
    RefinePagedSpec second;
    second.batch = -1;
    second.candidates = c;
    second.heads = config.heads;
    second.dim = config.dim;
    second.queryType = DType::F32;
    second.k = row;
    second.layout.pageEntries = p * config.pageEntries;
    Status status;
    auto firstModule = buildSelectPaged(first, status);
    ASSERT_TRUE(firstModule) << status.message();
    auto secondModule = buildRefinePaged(second, status);
    ASSERT_TRUE(secondModule) << status.message();
    if (!selectFn) {
      CompileOptions options;
      options.threads = 2;
      selectFn = compileForCpu(*firstModule, first.name, options, status);
      ASSERT_TRUE(selectFn) << status.message();
    }
    const std::int64_t bsz = std::int64_t(batch.size());
    BatchTables t = batchTables(*cache, batch, config.selectEntries());
    std::vector<std::int32_t> &table = t.table, &lengths = t.lengths;
    const std::int64_t maxPages = t.maxPages;
    const std::int64_t pages = std::int64_t(config.totalPages());
    for (std::int64_t l = 0; l < config.layers; ++l) {
      std::vector<float> q = random(size_t(bsz * config.heads * config.dim));
      std::vector<float> w = random(size_t(bsz * config.heads));
      std::vector<std::int32_t> tokens;
      std::string error;
      ASSERT_TRUE(cache->select(batch, l, q.data(), w.data(), tokens, error))
          << error;
      ASSERT_EQ(tokens.size(), size_t(bsz * row));
      std::vector<std::int8_t> pooled = cache->logicalPages(l),
                               tier = cache->logicalPages(config.layers + l);
      std::vector<std::int32_t> candidates(size_t(bsz * c), -1);
      std::vector<TensorRef> inputs = {
          TensorRef(q.data(), DType::F32, {bsz, 1, config.heads, config.dim}),
          TensorRef(w.data(), DType::F32, {bsz, 1, config.heads}),
          TensorRef(pooled.data(), DType::I8, {pages, config.pageBytes()}),
          TensorRef(table.data(), DType::I32, {bsz, maxPages}),
          TensorRef(lengths.data(), DType::I32, {bsz, 1})};
      std::vector<TensorRef> outputs = {
          TensorRef(candidates.data(), DType::I32, {bsz, 1, c})};
      status = selectFn->call(inputs, outputs);
      ASSERT_TRUE(status.ok()) << status.message();
      expectReference(*firstModule, first.name, inputs, outputs);
      inputs = {
          TensorRef(q.data(), DType::F32, {bsz, 1, config.heads, config.dim}),
          TensorRef(w.data(), DType::F32, {bsz, 1, config.heads}),
          TensorRef(candidates.data(), DType::I32, {bsz, 1, c}),
          TensorRef(tier.data(), DType::I8, {pages, config.tokenPageBytes()}),
          TensorRef(table.data(), DType::I32, {bsz, maxPages}),
          TensorRef(lengths.data(), DType::I32, {bsz, 1})};
      outputs = {TensorRef(tokens.data(), DType::I32, {bsz, 1, row})};
      expectReference(*secondModule, second.name, inputs, outputs);
      // Every kept token is one of the row's, each once.
      for (std::int64_t b = 0; b < bsz; ++b) {
        std::set<std::int32_t> seen;
        for (std::int64_t j = 0; j < row; ++j) {
          const std::int32_t t = tokens[size_t(b * row + j)];
          if (t < 0)
            continue;
          EXPECT_LT(t, lengths[size_t(b)]);
          EXPECT_TRUE(seen.insert(t).second) << "token " << t << " twice";
        }
      }
    }
  }

  /// After a and b's first step of 5 tokens: a grows to 24 tokens, b to
  /// 11, and `c` forks a at 24 tokens (6 groups). c shares a's full page
  /// (tokens 0..15, entries 0..3), its half page (tokens 16..23, entries
  /// 4, 5) and a tail of none; the three step on, and c's first append
  /// copies the half page (in both tiers with a token tier).
  void forkAndCopyOnWrite(SequenceId a, SequenceId b, SequenceId &c) {
    step({a}, 13); // a: 18 tokens, b: 5
    step({b, a}, 6);
    std::string error;
    ASSERT_TRUE(cache->fork(a, c, error)) << error;
    histories[c] = histories[a];
    EXPECT_EQ(cache->sequences().blockTable(c),
              cache->sequences().blockTable(a));
    ASSERT_EQ(cache->sequences().blockTable(c).size(), 2u);
    for (int i = 0; i < 6; ++i)
      step({c, b, a}, 1 + i % 3);
    step({c}, 9);
    EXPECT_NE(cache->sequences().blockTable(c)[1],
              cache->sequences().blockTable(a)[1])
        << "the half page was copied on write"
        << (config.refine > 0 ? ", in both tiers" : "");
    EXPECT_EQ(cache->sequences().blockTable(c)[0],
              cache->sequences().blockTable(a)[0])
        << "the full page is still shared";
  }

  CacheConfig config = smallConfig();
  std::unique_ptr<PagedCache> cache;
  std::map<SequenceId, History> histories;
  std::mt19937 rng{2026};
  std::unique_ptr<CpuFunction> selectFn; // the first stage, compiled once
};

} // namespace

TEST_F(PagedCacheTest, AppendsForksAndFreesMatchTheReference) {
  SequenceId a = cache->add(), b = cache->add();
  step({a, b}, 5);
  SequenceId c;
  ASSERT_NO_FATAL_FAILURE(forkAndCopyOnWrite(a, b, c));
  for (SequenceId s : {a, b, c})
    checkPages(s);
  checkSelect({a, b, c});
  checkSelect({c});

  std::string error;
  ASSERT_TRUE(cache->free(a, error)) << error;
  histories.erase(a);
  step({c, b}, 4);
  for (SequenceId s : {b, c})
    checkPages(s);
  checkSelect({b, c});
}

TEST_F(PagedCacheTest, BadCallsAreRefusedAndChangeNothing) {
  SequenceId a = cache->add(), b = cache->add();
  step({a, b}, 3);
  std::string error;
  std::vector<float> keys(size_t(2 * config.dim)), scores(2, 0.5f);
  for (float &k : keys)
    k = 0.25f;
  std::vector<const float *> k2 = {keys.data(), keys.data()},
                             s2 = {scores.data(), scores.data()};
  EXPECT_FALSE(cache->append({a, a}, 1, k2, s2, error));
  EXPECT_NE(error.find("appears twice"), std::string::npos) << error;
  EXPECT_FALSE(cache->append({a}, 1, {keys.data()}, {scores.data()}, error));
  EXPECT_NE(error.find("each of the 2 layers"), std::string::npos) << error;
  ASSERT_TRUE(cache->free(b, error));
  EXPECT_FALSE(cache->append({b}, 1, k2, s2, error));
  EXPECT_EQ(error, "sequence 1 was freed");
  std::vector<std::int32_t> tokens;
  EXPECT_FALSE(cache->select({b}, 0, keys.data(), scores.data(), tokens, error));
  EXPECT_FALSE(cache->select({a}, 2, keys.data(), scores.data(), tokens, error));
  EXPECT_NE(error.find("layer 2 of 2"), std::string::npos) << error;
  // The budget: 48 pages of 16 tokens; 800 more tokens write 50.
  std::vector<float> big(size_t(800 * config.dim), 0.5f), bigScores(800, 0.5f);
  EXPECT_FALSE(cache->append({a}, 800, {big.data(), big.data()},
                             {bigScores.data(), bigScores.data()}, error));
  EXPECT_EQ(error, "append: the batch writes 50 pages; the device tier holds "
                   "48 (0 pinned by running calls)");
  EXPECT_EQ(cache->sequences().length(a), 3);
  // 47 pages of 48: the device tier has room, the budget does not (c holds
  // two).
  SequenceId c = cache->add();
  step({c}, 20);
  EXPECT_FALSE(cache->append({a}, 47 * 16, {big.data(), big.data()},
                             {bigScores.data(), bigScores.data()}, error));
  EXPECT_NE(error.find("more pages"), std::string::npos) << error;
  EXPECT_EQ(cache->sequences().length(a), 3);
  checkPages(a);
}

TEST(PagedCacheConfig, BadConfigurations) {
  std::string error;
  CacheConfig c = smallConfig();
  c.dim = 24; // rotation needs a power of two
  EXPECT_FALSE(makeCpuCacheKernels(c, 1, error));
  EXPECT_FALSE(error.empty());
  c = smallConfig();
  c.layers = 0;
  auto kernels = makeCpuCacheKernels(smallConfig(), 1, error);
  ASSERT_TRUE(kernels) << error;
  EXPECT_FALSE(PagedCache::create(c, std::move(kernels), error));
  EXPECT_NE(error.find("expected 1 to 4096 layers"), std::string::npos);
  c = smallConfig();
  c.pages = std::uint64_t(1) << 31;
  c.pageEntries = 65536;
  EXPECT_FALSE(PagedCache::create(c, makeCpuCacheKernels(smallConfig(), 1, error),
                                  error));
  EXPECT_NE(error.find("more than this machine's"), std::string::npos) << error;
}

namespace {

/// The small cache with 6 device pages, 8 host pages and a 40-page file.
class TieredCacheTest : public PagedCacheTest {
protected:
  TieredCacheTest() {
    config.pages = 6;
    config.hostPages = 8;
    config.filePages = 40;
    config.filePath = ::testing::TempDir() + "/tiered-cache-" +
                      std::to_string(getpid());
  }

  /// Six sequences of up to 96 tokens (6 pages each, 36 in all): most
  /// pages live below the device tier and come back whenever a step or a
  /// select needs them. Appends and selects take one or two sequences, so
  /// every call fits the 6 device pages.
  void moveAcrossTiers() {
    std::vector<SequenceId> live;
    for (int i = 0; i < 6; ++i)
      live.push_back(cache->add());
    std::uniform_int_distribution<int> pick(0, 5), tokens(1, 9);
    std::string error;
    for (int round = 0; round < 60; ++round) {
      SequenceId a = live[size_t(pick(rng))], b = live[size_t(pick(rng))];
      if (cache->sequences().length(a) > 87)
        continue;
      if (a == b || cache->sequences().length(b) > 87)
        step({a}, tokens(rng));
      else
        step({a, b}, tokens(rng));
      if (round % 20 == 19) {
        // A fork shares a's pages; the parent goes, the child carries on.
        SequenceId child;
        ASSERT_TRUE(cache->fork(a, child, error)) << error;
        histories[child] = histories[a];
        ASSERT_TRUE(cache->free(a, error)) << error;
        histories.erase(a);
        std::replace(live.begin(), live.end(), a, child);
      }
      if (round % 10 == 9)
        for (SequenceId s : live)
          checkSelect({s});
    }
    for (SequenceId s : live) {
      checkPages(s);
      if (config.refine > 0)
        checkTokens(s);
    }
    const ResidencyStats stats = cache->residency();
    ASSERT_EQ(stats.tiers.size(), 3u);
    EXPECT_EQ(stats.tiers[0].name, "device");
    EXPECT_EQ(stats.tiers[2].name, "file");
    EXPECT_GT(stats.hits, 0u);
    EXPECT_GT(stats.misses, 0u) << "pages came back from below";
    EXPECT_GT(stats.tiers[2].pagesIn, 0u) << "pages reached the file";
    std::uint64_t cameBack = 0, resident = 0;
    for (const TierStats &t : stats.tiers) {
      EXPECT_LE(t.resident, t.pages) << t.name;
      // Every stored layer moves with its page (the token tier's too,
      // unless it stays on host).
      EXPECT_EQ(t.bytesIn, t.pagesIn * std::uint64_t(pageBytesInAllLayers(
                                           config.tieredLayerBytes())));
      resident += t.resident;
      if (&t != &stats.tiers[0])
        cameBack += t.hits;
    }
    EXPECT_EQ(cameBack, stats.misses);
    // Every page some sequence holds is in exactly one tier.
    std::uint64_t held = 0;
    for (PageIndex p = 0; p < PageIndex(config.totalPages()); ++p)
      held += cache->allocator().references(p) ? 1 : 0;
    EXPECT_EQ(resident, held);
  }
};

} // namespace

TEST_F(TieredCacheTest, PagesMoveAcrossTiersAndComeBackIntact) {
  moveAcrossTiers();
}

TEST_F(TieredCacheTest, ACallNeedingMoreThanTheDeviceTierIsRefused) {
  SequenceId a = cache->add(), b = cache->add();
  for (int i = 0; i < 8; ++i)
    step({a}, 14); // 112 tokens: 28 entries on 7 pages
  step({b}, 20);
  std::vector<float> q = random(size_t(config.heads * config.dim)),
                     w = random(size_t(config.heads));
  std::vector<std::int32_t> tokens;
  std::string error;
  EXPECT_FALSE(cache->select({a}, 0, q.data(), w.data(), tokens, error));
  EXPECT_EQ(error, "select: the call needs 7 pages in the device tier, which "
                   "holds 6 (0 pinned by running calls)");
  checkSelect({b});
  std::vector<float> big(size_t(120 * config.dim), 0.5f), bigScores(120, 0.5f);
  EXPECT_FALSE(cache->append({b}, 120, {big.data(), big.data()},
                             {bigScores.data(), bigScores.data()}, error));
  EXPECT_NE(error.find("the batch writes 8 pages; the device tier holds 6"),
            std::string::npos)
      << error;
  EXPECT_EQ(cache->sequences().length(b), 20);
  checkPages(a);
  checkPages(b);
}

TEST(TieredCacheConfig, AFileTierThatCannotBeReservedIsRefused) {
  CacheConfig c = smallConfig();
  c.filePages = 64;
  std::string error;
  EXPECT_FALSE(PagedCache::create(c, makeCpuCacheKernels(c, 1, error), error));
  EXPECT_EQ(error, "the file tier needs a file path");
  // Never over a file that exists.
  c.filePath = ::testing::TempDir() + "/full-tier-" + std::to_string(getpid());
  std::fclose(std::fopen(c.filePath.c_str(), "w"));
  EXPECT_FALSE(PagedCache::create(c, makeCpuCacheKernels(c, 1, error), error));
  EXPECT_EQ(error, "the file tier (" + c.filePath + "): File exists");
  ASSERT_EQ(unlink(c.filePath.c_str()), 0);
  // A disk too small for the tier: a 4 KiB file size limit against 64
  // pages of 144 bytes in 2 layers. The whole file is reserved when the
  // cache is made, so the error comes now, never while a page moves. The
  // limit holds only around create(): every file the process writes
  // meanwhile (its own output redirected to one, say) is limited too.
  auto kernels = makeCpuCacheKernels(c, 1, error);
  ASSERT_TRUE(kernels) << error;
  std::fflush(nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::unique_ptr<PagedCache> cache =
      PagedCache::create(c, std::move(kernels), error);
  setrlimit(RLIMIT_FSIZE, &old);
  EXPECT_FALSE(cache);
  EXPECT_EQ(error, "the file tier (" + c.filePath +
                       "): reserving 18432 bytes: File too large");
  EXPECT_NE(access(c.filePath.c_str(), F_OK), 0) << "no file is left";
}

namespace {

/// Pooling parameters in the cache: a bias, a temperature, and (second
/// fixture) scores per channel.
class PooledCacheTest : public PagedCacheTest,
                        public ::testing::WithParamInterface<bool> {
protected:
  PooledCacheTest() {
    config.perChannelScores = GetParam();
    config.bias = GetParam() ? "channel" : "slot";
    config.biasValues = random(size_t(config.biasCount()));
    config.temperature = 0.7f;
  }
};

} // namespace

TEST_P(PooledCacheTest, BiasTemperatureAndPerChannelScoresMatchTheReference) {
  SequenceId a = cache->add(), b = cache->add();
  step({a, b}, 7);
  step({a}, 13);
  SequenceId c;
  std::string error;
  ASSERT_TRUE(cache->fork(a, c, error)) << error;
  histories[c] = histories[a];
  for (int i = 0; i < 4; ++i)
    step({c, b, a}, 1 + i);
  for (SequenceId s : {a, b, c})
    checkPages(s);
  checkSelect({a, b, c});

  // A snapshot keeps the pooling parameters: restored from a configuration
  // with no bias values, the cache has the snapshot's and appends as the
  // original does.
  const std::string path = ::testing::TempDir() + "/pooled-" +
                           std::to_string(getpid()) + "-" +
                           std::to_string(GetParam());
  ASSERT_TRUE(writeSnapshot(*cache, path, 1, error)) << error;
  CacheConfig blank = config;
  blank.biasValues.clear();
  CacheConfig header;
  std::uint64_t generation = 0;
  ASSERT_TRUE(readSnapshotHeader(path, header, generation, error)) << error;
  EXPECT_EQ(header.bias, config.bias);
  EXPECT_EQ(header.perChannelScores, config.perChannelScores);
  EXPECT_EQ(header.temperature, config.temperature);
  auto restored = restoreSnapshot(path, blank, makeCpuCacheKernels(blank, 2, error),
                                  generation, error);
  ASSERT_TRUE(restored) << error;
  EXPECT_EQ(restored->config().biasValues, config.biasValues);
  CacheConfig otherTemperature = config;
  otherTemperature.temperature = 1.0f;
  EXPECT_FALSE(restoreSnapshot(path, otherTemperature,
                               makeCpuCacheKernels(otherTemperature, 2, error),
                               generation, error));
  EXPECT_NE(error.find("a snapshot of another cache"), std::string::npos)
      << error;
  std::remove(path.c_str());
  cache = std::move(restored);
  step({a, b, c}, 5);
  for (SequenceId s : {a, b, c})
    checkPages(s);
  checkSelect({c, a});
}

INSTANTIATE_TEST_SUITE_P(SlotBiasOrChannelBias, PooledCacheTest,
                         ::testing::Bool());

TEST(PagedCacheConfig, BadPoolingParameters) {
  CacheConfig c = smallConfig();
  std::string error;
  auto kernels = makeCpuCacheKernels(c, 1, error);
  ASSERT_TRUE(kernels) << error;
  c.bias = "slot";
  c.biasValues = {1.0f, 2.0f}; // P = 4 values expected
  EXPECT_FALSE(PagedCache::create(c, std::move(kernels), error));
  EXPECT_NE(error.find("got bias 'slot' with 2 values"), std::string::npos)
      << error;
  c.biasValues.assign(4, 0.5f);
  c.temperature = 0.0f;
  EXPECT_FALSE(PagedCache::create(c, makeCpuCacheKernels(smallConfig(), 1, error),
                                  error));
  EXPECT_NE(error.find("temperature 0"), std::string::npos) << error;
}

namespace {

/// The small cache with a token tier (refine 2): select_paged keeps 2 x 6
/// entries (51 candidate tokens with the tail's), refine_paged the best
/// 27 of them, P * E = 16 tokens a page in both tiers.
class RefineCacheTest : public PagedCacheTest {
protected:
  RefineCacheTest() { config.refine = 2; }

  /// Every stored layer of the two caches holds the same bytes by page id.
  void expectSamePages(const PagedCache &a, const PagedCache &b) {
    for (std::int64_t l = 0; l < config.storedLayers(); ++l)
      EXPECT_EQ(a.logicalPages(l), b.logicalPages(l)) << "stored layer " << l;
  }
};

/// The tiers of TieredCacheTest with a token tier.
class TieredRefineCacheTest : public TieredCacheTest {
protected:
  TieredRefineCacheTest() { config.refine = 2; }
};

/// The same with the token tier kept in host memory: only the pools move.
class HostTokenTierCacheTest : public TieredCacheTest {
protected:
  HostTokenTierCacheTest() {
    config.refine = 2;
    config.tokenTier = "host";
  }
};

} // namespace

TEST_F(RefineCacheTest, BothTiersMatchTheReferenceThroughAppendsForksAndFrees) {
  SequenceId a = cache->add(), b = cache->add();
  step({a, b}, 5);
  checkTokens(a);
  checkSelect({a, b}); // b: one group and a tail, both stages
  SequenceId c;
  ASSERT_NO_FATAL_FAILURE(forkAndCopyOnWrite(a, b, c));
  for (SequenceId s : {a, b, c}) {
    checkPages(s);
    checkTokens(s);
  }
  checkSelect({a, b, c});
  checkSelect({c});

  std::string error;
  ASSERT_TRUE(cache->free(a, error)) << error;
  histories.erase(a);
  step({c, b}, 4);
  // A page that holds only tail tokens (b: 33 tokens, the third page has
  // token 32 and no pooled entry yet).
  step({b}, 33 - cache->sequences().length(b));
  EXPECT_EQ(cache->sequences().blockTable(b).size(), 3u);
  for (SequenceId s : {b, c}) {
    checkPages(s);
    checkTokens(s);
  }
  checkSelect({b, c});
}

TEST_F(RefineCacheTest, SnapshotsKeepTheTokenTier) {
  SequenceId a = cache->add(), b = cache->add();
  step({a, b}, 11);
  step({a}, 21);
  SequenceId c;
  std::string error;
  ASSERT_TRUE(cache->fork(a, c, error)) << error;
  histories[c] = histories[a];
  const std::string path = ::testing::TempDir() + "/refine-" +
                           std::to_string(getpid());
  SnapshotWriter writer(path, 4);
  ASSERT_TRUE(writer.write(*cache, 1, error)) << error;
  step({c, b}, 6); // an increment: the pages these steps wrote
  ASSERT_TRUE(writer.write(*cache, 2, error)) << error;
  CacheConfig header;
  std::uint64_t generation = 0;
  ASSERT_TRUE(readSnapshotHeader(path, header, generation, error)) << error;
  EXPECT_EQ(header.refine, 2);
  EXPECT_EQ(generation, 2u);
  auto restored = restoreSnapshot(path, config, makeCpuCacheKernels(config, 2, error),
                                  generation, error);
  ASSERT_TRUE(restored) << error;
  expectSamePages(*cache, *restored);

  // Into a cache without a token tier (or another C): refused, saying so.
  CacheConfig plain = config;
  plain.refine = 0;
  EXPECT_FALSE(restoreSnapshot(path, plain, makeCpuCacheKernels(plain, 1, error),
                               generation, error));
  EXPECT_EQ(error, path + ": a snapshot of another cache: refine 2 (a token "
                          "tier), this one has refine 0");
  for (std::uint64_t i = 1; i <= 1; ++i)
    std::remove(incrementPath(path, i).c_str());
  std::remove(path.c_str());

  cache = std::move(restored);
  step({a, b, c}, 7);
  for (SequenceId s : {a, b, c}) {
    checkPages(s);
    checkTokens(s);
  }
  checkSelect({c, a, b});
}

TEST_F(PagedCacheTest, AVersion3SnapshotRestoresWithoutATokenTier) {
  // A snapshot of a cache without a token tier, rewritten as format version
  // 3 wrote it (a 136-byte header without refine, its XXH64 at 128).
  SequenceId a = cache->add();
  step({a}, 21);
  std::string error;
  const std::string path = ::testing::TempDir() + "/version3-" +
                           std::to_string(getpid());
  std::vector<char> file = snapshotBytes(path, 5);
  ASSERT_GT(file.size(), 144u);
  ASSERT_EQ(file[8], 5) << "this build writes version 5";
  std::vector<char> old(file.begin(), file.begin() + 128);
  old[8] = 3;
  old[12] = char(136);
  old[125] = 0; // version 5's code type: version 3 had none

  const std::uint64_t hash = XXH64(old.data(), 128, 0);
  for (int i = 0; i < 8; ++i)
    old.push_back(char(hash >> (8 * i)));
  old.insert(old.end(), file.begin() + 144, file.end());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(old.data(), std::streamsize(old.size()));
  }
  CacheConfig header;
  std::uint64_t generation = 0;
  ASSERT_TRUE(readSnapshotHeader(path, header, generation, error)) << error;
  EXPECT_EQ(header.refine, 0);
  EXPECT_EQ(generation, 5u);
  CacheConfig refined = config;
  refined.refine = 2;
  EXPECT_FALSE(restoreSnapshot(path, refined,
                               makeCpuCacheKernels(refined, 1, error),
                               generation, error));
  EXPECT_EQ(error, path + ": a snapshot of another cache: refine 0 (no token "
                          "tier), this one has refine 2");
  auto restored = restoreSnapshot(path, config, makeCpuCacheKernels(config, 2, error),
                                  generation, error);
  std::remove(path.c_str());
  ASSERT_TRUE(restored) << error;
  for (std::int64_t l = 0; l < config.layers; ++l)
    EXPECT_EQ(restored->logicalPages(l), cache->logicalPages(l));
  cache = std::move(restored);
  step({a}, 6);
  checkPages(a);
}

TEST_F(PagedCacheTest, AVersion4SnapshotRestoresWithFp8Codes) {
  // Version 4 had no code type (FP8 pages): the same file with version 4
  // and no code bits restores into the FP8 cache; its header says so. A
  // code type the table lacks is refused with the known ones listed.
  SequenceId a = cache->add();
  step({a}, 13);
  std::string error;
  const std::string path = ::testing::TempDir() + "/version4-" +
                           std::to_string(getpid());
  std::vector<char> file = snapshotBytes(path, 3);
  ASSERT_GT(file.size(), 144u);
  auto rewrite = [&](char version, char codes) {
    std::vector<char> bytes = file;
    bytes[8] = version;
    bytes[125] = codes; // bits 8-15 of the pooling word at 124
    const std::uint64_t hash = XXH64(bytes.data(), 136, 0);
    for (int i = 0; i < 8; ++i)
      bytes[size_t(136 + i)] = char(hash >> (8 * i));
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
  };
  CacheConfig header;
  std::uint64_t generation = 0;
  rewrite(5, char(ElementType::F16));
  EXPECT_FALSE(readSnapshotHeader(path, header, generation, error));
  EXPECT_NE(error.find("unknown code type \"f16\" (known: f8E4M3FN, i8, i4 "
                       "or f4E2M1FN)"),
            std::string::npos)
      << error;
  rewrite(5, char(100));
  EXPECT_FALSE(readSnapshotHeader(path, header, generation, error));
  EXPECT_NE(error.find("unknown code type \"row 100\""), std::string::npos)
      << error;
  rewrite(4, 0);
  ASSERT_TRUE(readSnapshotHeader(path, header, generation, error)) << error;
  EXPECT_EQ(header.codes, ElementType::F8E4M3FN);
  CacheConfig i8 = config;
  i8.codes = ElementType::I8;
  EXPECT_FALSE(restoreSnapshot(path, i8, makeCpuCacheKernels(i8, 1, error),
                               generation, error));
  auto restored = restoreSnapshot(
      path, config, makeCpuCacheKernels(config, 2, error), generation, error);
  std::remove(path.c_str());
  ASSERT_TRUE(restored) << error;
  for (std::int64_t l = 0; l < config.layers; ++l)
    EXPECT_EQ(restored->logicalPages(l), cache->logicalPages(l));
}

TEST_F(RefineCacheTest, TheBackgroundCompressorWritesBothTiers) {
  // Its worker runs PagedCache::runAppend and its selects runSelect: both
  // tiers are written, a select before the flush has the refined row and
  // the tokens still waiting.
  std::vector<SequenceId> ids;
  {
    BackgroundCompressor compressor(*cache);
    ids = {compressor.add(), compressor.add()};
    std::string error;
    for (std::int64_t n : {5, 13, 7, 1, 9}) {
      std::vector<std::vector<float>> keys, scores;
      std::vector<const float *> k, sc;
      for (std::int64_t l = 0; l < config.layers; ++l) {
        keys.push_back(random(size_t(2 * n * config.dim)));
        scores.push_back(random(size_t(2 * n)));
      }
      for (std::int64_t l = 0; l < config.layers; ++l) {
        k.push_back(keys[size_t(l)].data());
        sc.push_back(scores[size_t(l)].data());
      }
      ASSERT_TRUE(compressor.submit(ids, n, k, sc, error)) << error;
      recordStep(histories, config, ids, n, keys, scores);
      std::vector<float> q = random(size_t(2 * config.heads * config.dim)),
                         w = random(size_t(2 * config.heads));
      std::vector<std::vector<std::int32_t>> rows;
      ASSERT_TRUE(compressor.select(ids, 1, q.data(), w.data(), rows, error))
          << error;
      ASSERT_EQ(rows.size(), 2u);
      for (const auto &row : rows)
        EXPECT_GE(row.size(), size_t(config.k * config.poolSize +
                                     config.poolSize - 1));
    }
    ASSERT_TRUE(compressor.flush(error)) << error;
  }
  for (SequenceId s : ids) {
    EXPECT_EQ(cache->sequences().length(s), 35);
    checkPages(s);
    checkTokens(s);
  }
  checkSelect(ids);
}

TEST_F(TieredRefineCacheTest, TokenLayersMoveWithTheirPages) {
  moveAcrossTiers();
}

TEST_F(HostTokenTierCacheTest, TheTokenTierStaysOnHostWhileThePoolsMove) {
  // Pages, selects (both stages) and the token tier checked as above; the
  // tiers' traffic counts the pooled layers' bytes only.
  moveAcrossTiers();
  // A freed page's token bytes are zeroed for its next owner.
  std::string error;
  const SequenceId s = cache->add();
  step({s}, 20);
  const PageIndex page = cache->sequences().blockTable(s)[0];
  ASSERT_TRUE(cache->free(s, error)) << error;
  std::vector<std::int8_t> bytes(size_t(config.tokenPageBytes()), 1);
  ASSERT_TRUE(cache->readPage(page, config.layers, bytes.data(), error))
      << error;
  EXPECT_EQ(bytes, std::vector<std::int8_t>(bytes.size(), 0));
}

TEST(RefineCacheConfig, BadRefineIsRefused) {
  std::string error;
  auto expectRefused = [&](const CacheConfig &c, const std::string &why) {
    EXPECT_FALSE(PagedCache::create(
        c, makeCpuCacheKernels(smallConfig(), 1, error), error));
    EXPECT_NE(error.find(why), std::string::npos) << error;
  };
  CacheConfig c = smallConfig();
  c.refine = -1;
  expectRefused(c, "refine is 0 (off) or C from 1 to 65536 with k >= 1");
  c.refine = 65537;
  expectRefused(c, "got refine 65537");
  c.refine = 2;
  c.k = 0;
  expectRefused(c, "got refine 2, k 0");
  c.k = 6;
  c.tokenTier = "gpu";
  expectRefused(c, "tokenTier is device or host, got 'gpu'");
  c.tokenTier = "device";
  // C * k * P + P - 1 candidates past 2^31.
  c.refine = 65536;
  c.k = 8192;
  expectRefused(c, "below 2^31");
  // The token tier's bytes count against the machine's memory.
  c = smallConfig();
  c.refine = 1;
  c.pages = std::uint64_t(1) << 30;
  c.pageEntries = 4096;
  expectRefused(c, "bytes in each layer's token tier) take more than");
  // The CUDA backend's artifacts include the token tier's two kernels.
  c = smallConfig();
  c.refine = 2;
  CudaCacheArtifacts artifacts;
  ASSERT_TRUE(compileCudaCacheArtifacts(c, "sm_90", artifacts, error)) << error;
  EXPECT_NE(artifacts.tokenAppendManifest.find("append_paged"),
            std::string::npos);
  EXPECT_NE(artifacts.refineManifest.find("refine_paged"), std::string::npos);
  EXPECT_FALSE(artifacts.refineBinary.empty());
}
