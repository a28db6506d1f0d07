//===- CacheStoreTest.cpp - The cache with a store tier on a real server --===//
//
// A PagedCache (CPU kernels) whose bottom tier is a RedisStore on its own
// redis-server (LocalRedisServer; skipped, loudly, without one): random
// appends, forks and frees push pages to the store and bring them back,
// every live sequence's pages equal one compress_paged of its history and
// every select passes the float64 reference; the server SIGKILLed and
// restarted mid-run; a sequence published by a forked child and adopted
// here; the background compressor's worker and a selecting thread; a
// snapshot restored with a store tier. Keys are fresh random values, never zeros.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/BackgroundCompressor.h"
#include "indexpool/Cache/PagedCache.h"
#include "indexpool/Cache/Snapshot.h"
#include "indexpool/CacheCpu/CpuCacheKernels.h"
#include "indexpool/CacheRedis/CacheStore.h"
#include "indexpool/CacheRedis/LocalRedisServer.h"

#include "CacheChecks.h"
#include "RawRedis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <thread>

#include <unistd.h>

using namespace indexpool;
using namespace indexpool::cache;
using namespace indexpool::cache::test;

namespace {

/// One cache and the histories of its sequences.
struct CacheRun {
  std::unique_ptr<PagedCache> cache;
  RedisStore *store = nullptr; // owned by the cache's store tier
  std::map<SequenceId, History> histories;
};

class CacheStoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    binary = findRedisServer();
    if (binary.empty())
      GTEST_SKIP() << "redis-server is not installed (apt-get install "
                      "redis-server): the cache's store tier is NOT tested";
    std::string error;
    ASSERT_TRUE(server.start(binary, {}, 0, error)) << error;
    config = smallConfig(); // CacheChecks.h
    config.pages = 6;
    config.hostPages = 8;
    config.storePages = 40;
    config.storeUrl = "redis://127.0.0.1:" + std::to_string(server.port());
    config.storeModel = "test-model";
  }

  /// A cache of `c` (with its store tier when c.storePages > 0).
  void make(const CacheConfig &c, CacheRun &run) {
    std::string error;
    auto kernels = makeCpuCacheKernels(c, 2, error);
    ASSERT_TRUE(kernels) << error;
    std::unique_ptr<RedisStore> store;
    if (c.storePages) {
      store = makeCacheStore(
          c, [this](const std::string &text) { warnings.push_back(text); },
          error);
      ASSERT_TRUE(store) << error;
      run.store = store.get();
    }
    run.cache = PagedCache::create(c, std::move(kernels), error,
                                   std::move(store));
    ASSERT_TRUE(run.cache) << error;
  }

  std::vector<float> random(std::mt19937_64 &rng, size_t n) {
    return randomNormal(rng, n);
  }

  /// One decode step of n tokens for `batch`, recorded in the histories;
  /// false with `error` from the cache.
  bool step(CacheRun &run, std::mt19937_64 &rng,
            const std::vector<SequenceId> &batch, std::int64_t n,
            std::string &error) {
    const CacheConfig &c = run.cache->config();
    std::vector<std::vector<float>> keys, scores;
    std::vector<const float *> keyPtrs, scorePtrs;
    for (std::int64_t l = 0; l < c.layers; ++l) {
      keys.push_back(random(rng, batch.size() * size_t(n * c.dim)));
      scores.push_back(random(rng, batch.size() * size_t(n * c.scoreWidth())));
      keyPtrs.push_back(keys.back().data());
      scorePtrs.push_back(scores.back().data());
    }
    if (!run.cache->append(batch, n, keyPtrs, scorePtrs, error))
      return false;
    recordStep(run.histories, c, batch, n, keys, scores);
    return true;
  }
  void stepOk(CacheRun &run, const std::vector<SequenceId> &batch,
              std::int64_t n) {
    std::string error;
    ASSERT_TRUE(step(run, rng, batch, n, error)) << error;
  }
  void fork(CacheRun &run, SequenceId parent, SequenceId &child) {
    std::string error;
    ASSERT_TRUE(run.cache->fork(parent, child, error)) << error;
    run.histories[child] = run.histories[parent];
  }

  /// The sequence's entries equal one compress_paged of `h` (CacheChecks.h;
  /// compiled once, for the fixture's configuration).
  void checkPages(CacheRun &run, SequenceId s, const History &h) {
    if (!compress)
      compileCompress(run.cache->config(), compress);
    if (compress)
      expectPages(*run.cache, s, h, *compress);
  }
  void checkPages(CacheRun &run, SequenceId s) {
    checkPages(run, s, run.histories[s]);
  }

  /// Every layer's select for `s` passes the float64 reference; the tokens
  /// of each layer go to `selected` when given.
  void checkSelect(CacheRun &run, SequenceId s, std::mt19937_64 &queries,
                   std::vector<std::vector<std::int32_t>> *selected = nullptr) {
    expectSelect(*run.cache, {s}, queries, selected);
  }

  /// Whether any page holding `s`'s entries is in the store tier.
  bool inStore(CacheRun &run, SequenceId s) {
    const auto &row = run.cache->sequences().blockTable(s);
    for (PageIndex page : row)
      if (run.cache->pageTier(page) == storeTier)
        return true;
    return false;
  }

  std::string binary;
  LocalRedisServer server;
  CacheConfig config;
  std::vector<std::string> warnings;
  std::mt19937_64 rng{2026};
  std::unique_ptr<CpuFunction> compress;
  const std::size_t storeTier = 2; // device, host, store
};

TEST_F(CacheStoreTest, PagesReachTheStoreAndComeBackIntact) {
  CacheRun run;
  make(config, run);
  ASSERT_EQ(run.cache->residency().tiers.size(), 3u);
  EXPECT_EQ(run.cache->residency().tiers[storeTier].name, "store");
  std::vector<SequenceId> live;
  for (int i = 0; i < 3; ++i)
    live.push_back(run.cache->add());
  std::mt19937_64 queries(11);
  std::uniform_int_distribution<int> action(0, 99);
  for (int round = 0; round < 80 && !HasFailure(); ++round) {
    const int a = action(rng);
    const SequenceId s = live[size_t(rng() % live.size())];
    const std::int64_t length = run.cache->sequences().length(s);
    if (a < 10 && live.size() < 7) {
      live.push_back(run.cache->add());
    } else if (a < 20 && live.size() < 7 && length > 0) {
      SequenceId child;
      fork(run, s, child);
      live.push_back(child);
    } else if ((a < 28 && live.size() > 2) || length > 80) {
      // A select holds at most the device tier's 6 pages (96 tokens).
      std::string error;
      ASSERT_TRUE(run.cache->free(s, error)) << error;
      run.histories.erase(s);
      live.erase(std::find(live.begin(), live.end(), s));
    } else if (a < 40 && length > 0) {
      checkSelect(run, s, queries);
    } else {
      // One or two sequences, 1 to 16 tokens each.
      std::vector<SequenceId> batch = {s};
      const SequenceId other = live[size_t(rng() % live.size())];
      if (other != s && run.cache->sequences().length(other) <= 80)
        batch.push_back(other);
      stepOk(run, batch, std::int64_t(1 + rng() % 16));
    }
  }
  for (SequenceId s : live) {
    checkPages(run, s);
    if (run.cache->sequences().length(s) > 0)
      checkSelect(run, s, queries);
  }
  const ResidencyStats stats = run.cache->residency();
  const TierStats &store = stats.tiers[storeTier];
  std::printf("store tier: %llu pages in, %llu back up (hits); redis: %llu "
              "stored, %llu deduplicated, %llu read\n",
              (unsigned long long)store.pagesIn,
              (unsigned long long)store.hits,
              (unsigned long long)run.store->stats().stored,
              (unsigned long long)run.store->stats().deduplicated,
              (unsigned long long)run.store->stats().reads);
  EXPECT_GT(store.pagesIn, 0u);
  EXPECT_GT(store.hits, 0u);
  EXPECT_GT(run.store->stats().stored, 0u);
  EXPECT_GT(run.store->stats().reads, 0u);
  EXPECT_TRUE(warnings.empty());
}

TEST_F(CacheStoreTest, AKilledServerFailsOnlyTheCallsNeedingItsPages) {
  CacheRun run;
  make(config, run);
  // 4 sequences of 80 tokens (20 pages; 14 fit the device and host tiers):
  // the oldest pages go to the store.
  std::vector<SequenceId> old;
  for (int i = 0; i < 4; ++i)
    old.push_back(run.cache->add());
  for (int i = 0; i < 5; ++i)
    stepOk(run, old, 16);
  const SequenceId fresh = run.cache->add();
  stepOk(run, {fresh}, 32);
  ASSERT_FALSE(inStore(run, fresh));
  std::vector<SequenceId> lost;
  for (SequenceId s : old)
    if (inStore(run, s))
      lost.push_back(s);
  ASSERT_FALSE(lost.empty());
  ASSERT_TRUE(warnings.empty());

  server.stop(); // SIGKILL, no persistence: the server's pages are gone
  // Appends and selects on local pages work; the device tier's victims go
  // to the store tier, which keeps them in host memory.
  std::mt19937_64 queries(5);
  for (int i = 0; i < 3; ++i)
    stepOk(run, {fresh}, 16);
  checkSelect(run, fresh, queries);
  checkPages(run, fresh);
  EXPECT_GT(run.store->stats().overflowPages, 0u);
  ASSERT_EQ(warnings.size(), 1u);
  std::printf("warning: %s\n", warnings[0].c_str());

  // A select needing a page only the server had fails, quickly, with the
  // page named; nothing is returned and nothing else changes.
  std::vector<std::int32_t> tokens = {12345};
  std::vector<float> q = random(rng, size_t(config.heads * config.dim));
  std::vector<float> w = random(rng, size_t(config.heads));
  std::string error;
  const Clock::time_point started = Clock::now();
  EXPECT_FALSE(run.cache->select({lost[0]}, 0, q.data(), w.data(), tokens,
                                 error));
  EXPECT_LT(milliseconds(started), 5000);
  std::printf("select error: %s\n", error.c_str());
  EXPECT_NE(error.find("was lost by the store tier"), std::string::npos)
      << error;
  EXPECT_NE(error.find("free its sequences"), std::string::npos) << error;
  // The batch read counts pages, and layers of pages apart.
  long long pagesRead = 0, layersRead = 0;
  const size_t reading = error.find("reading ");
  ASSERT_NE(reading, std::string::npos) << error;
  ASSERT_EQ(std::sscanf(error.c_str() + reading,
                        "reading %lld pages (%lld page layers)", &pagesRead,
                        &layersRead),
            2)
      << error;
  EXPECT_GT(pagesRead, 0);
  EXPECT_EQ(layersRead, pagesRead * config.storedLayers()) << error;
  EXPECT_EQ(tokens, std::vector<std::int32_t>{12345});
  EXPECT_TRUE(run.cache->residency().tiers.size() == 3);
  // Not fatal: later calls on other pages work.
  checkSelect(run, fresh, queries);
  stepOk(run, {fresh}, 3);
  checkPages(run, fresh);
  EXPECT_EQ(warnings.size(), 1u);

  // The server back (empty) on the same port: pages written later go to it
  // again; the pages it lost stay lost.
  ASSERT_TRUE(server.start(binary, {}, server.port(), error)) << error;
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  const std::uint64_t storedBefore = run.store->stats().stored;
  const SequenceId later = run.cache->add();
  for (int i = 0; i < 5; ++i)
    stepOk(run, {later}, 16);
  const SequenceId second = run.cache->add();
  for (int i = 0; i < 5; ++i)
    stepOk(run, {second}, 16);
  EXPECT_GT(run.store->stats().stored, storedBefore);
  ASSERT_EQ(warnings.size(), 2u);
  std::printf("recovery: %s\n", warnings[1].c_str());
  error.clear();
  EXPECT_FALSE(run.cache->select({lost[0]}, 1, q.data(), w.data(), tokens,
                                 error));
  EXPECT_NE(error.find("was lost by the store tier"), std::string::npos)
      << error;
  // Free what the server lost; everything else is intact.
  for (SequenceId s : old)
    if (std::find(lost.begin(), lost.end(), s) != lost.end()) {
      ASSERT_TRUE(run.cache->free(s, error)) << error;
      run.histories.erase(s);
    }
  for (auto &[s, history] : run.histories) {
    checkPages(run, s, history);
    checkSelect(run, s, queries);
  }
}

/// The child's side of the sharing test: a cache of `c` appends `steps`
/// decode steps of keys from `seed` to one sequence and publishes it as
/// `name`; 0 on success.
int publishInChild(const CacheConfig &c, std::uint64_t seed,
                   const std::vector<std::int64_t> &steps,
                   const std::string &name) {
  std::string error;
  auto kernels = makeCpuCacheKernels(c, 1, error);
  std::unique_ptr<RedisStore> store =
      kernels ? makeCacheStore(c, {}, error) : nullptr;
  std::unique_ptr<PagedCache> cache =
      store ? PagedCache::create(c, std::move(kernels), error, std::move(store))
            : nullptr;
  if (!cache) {
    std::fprintf(stderr, "child: %s\n", error.c_str());
    return 1;
  }
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const SequenceId s = cache->add();
  for (std::int64_t n : steps) {
    std::vector<std::vector<float>> keys(size_t(c.layers)),
        scores(size_t(c.layers));
    std::vector<const float *> keyPtrs, scorePtrs;
    for (std::int64_t l = 0; l < c.layers; ++l) {
      keys[size_t(l)].resize(size_t(n * c.dim));
      scores[size_t(l)].resize(size_t(n));
      for (float &x : keys[size_t(l)])
        x = normal(rng);
      for (float &x : scores[size_t(l)])
        x = normal(rng);
      keyPtrs.push_back(keys[size_t(l)].data());
      scorePtrs.push_back(scores[size_t(l)].data());
    }
    if (!cache->append({s}, n, keyPtrs, scorePtrs, error)) {
      std::fprintf(stderr, "child: %s\n", error.c_str());
      return 1;
    }
  }
  if (!cache->publish(s, name, error)) {
    std::fprintf(stderr, "child: %s\n", error.c_str());
    return 1;
  }
  return 0;
}

TEST_F(CacheStoreTest, ASequencePublishedByAnotherProcessIsAdopted) {
  // The child appends 90 tokens (22 groups, 6 pages, a tail of 2) in
  // steps of these sizes, from this seed.
  const std::vector<std::int64_t> steps = {5, 16, 1, 30, 7, 31};
  const std::uint64_t seed = 77;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0)
    ::_exit(publishInChild(config, seed, steps, "prefix"));
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  // The same keys appended here, in a cache without a store tier.
  CacheConfig plain = config;
  plain.storePages = 0;
  plain.storeUrl.clear();
  CacheRun self;
  make(plain, self);
  {
    std::mt19937_64 keys(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const SequenceId s = self.cache->add();
    History &h = self.histories[s];
    h.keys.resize(2);
    h.scores.resize(2);
    for (std::int64_t n : steps) {
      std::vector<const float *> keyPtrs, scorePtrs;
      std::vector<std::vector<float>> k(2), sc(2);
      for (size_t l = 0; l < 2; ++l) {
        k[l].resize(size_t(n * config.dim));
        sc[l].resize(size_t(n));
        for (float &x : k[l])
          x = normal(keys);
        for (float &x : sc[l])
          x = normal(keys);
        keyPtrs.push_back(k[l].data());
        scorePtrs.push_back(sc[l].data());
        h.keys[l].insert(h.keys[l].end(), k[l].begin(), k[l].end());
        h.scores[l].insert(h.scores[l].end(), sc[l].begin(), sc[l].end());
      }
      std::string error;
      ASSERT_TRUE(self.cache->append({s}, n, keyPtrs, scorePtrs, error))
          << error;
    }
  }
  const SequenceId mine = 0;
  const History history = self.histories[mine];

  CacheRun run;
  make(config, run);
  Raw raw(server.port());
  const long long keysBefore = raw.integer("DBSIZE");
  // Some traffic of its own first, so the adopted pages get other ids.
  const SequenceId other = run.cache->add();
  stepOk(run, {other}, 40);
  SequenceId adopted;
  std::string error;
  ASSERT_TRUE(run.cache->adopt("prefix", adopted, error)) << error;
  ASSERT_EQ(run.cache->sequences().length(adopted), 90);
  checkPages(run, adopted, history);
  // Byte for byte the pages of the cache that appended the keys itself.
  const auto &ours = run.cache->sequences().blockTable(adopted);
  const auto &theirs = self.cache->sequences().blockTable(mine);
  std::vector<std::int8_t> a(size_t(config.pageBytes())),
      b(size_t(config.pageBytes()));
  for (size_t i = 0; i < 6; ++i)
    for (std::int64_t l = 0; l < config.layers; ++l) {
      ASSERT_TRUE(run.cache->readPage(ours[i], l, a.data(), error)) << error;
      ASSERT_TRUE(self.cache->readPage(theirs[i], l, b.data(), error))
          << error;
      EXPECT_EQ(a, b) << "page " << i << " layer " << l;
    }
  // The same tokens for the same queries (the tails came too), and the
  // reference's check.
  std::mt19937_64 q1(3), q2(3);
  std::vector<std::vector<std::int32_t>> adoptedTokens, selfTokens;
  checkSelect(run, adopted, q1, &adoptedTokens);
  checkSelect(self, mine, q2, &selfTokens);
  EXPECT_EQ(adoptedTokens, selfTokens);

  // A second adopt, into a new cache (another process's view), reads
  // what is there and writes nothing: no new key on the server.
  const long long keysAfter = raw.integer("DBSIZE");
  CacheRun second;
  make(config, second);
  SequenceId again;
  ASSERT_TRUE(second.cache->adopt("prefix", again, error)) << error;
  checkPages(second, again, history);
  EXPECT_EQ(raw.integer("DBSIZE"), keysAfter);
  EXPECT_EQ(second.store->stats().stored, 0u);
  std::printf("redis keys: %lld before the adopts, %lld after the first "
              "adopt and its cache's own traffic, %lld after the second "
              "adopt\n",
              keysBefore, keysAfter, raw.integer("DBSIZE"));
  for (CacheRun *r : {&run, &second}) {
    const PagedCache::SharingStats &sharing = r->cache->sharing();
    EXPECT_EQ(sharing.adopted, 1u);
    EXPECT_EQ(sharing.pagesAdopted, 6u);
    std::printf("adopt: %llu pages (%lld stored layers of %lld bytes each) "
                "in %.1f us, %.1f us a page\n",
                (unsigned long long)sharing.pagesAdopted,
                (long long)config.storedLayers(),
                (long long)config.pageBytes(), sharing.adoptSeconds * 1e6,
                sharing.adoptSeconds * 1e6 / double(sharing.pagesAdopted));
  }

  // A cache of another configuration refuses the manifest, and adds
  // nothing.
  for (int variant = 0; variant < 2; ++variant) {
    CacheConfig otherConfig = config;
    if (variant == 0) {
      otherConfig.dim = 64;
    } else {
      otherConfig.bias = "slot";
      otherConfig.biasValues = {0.5f, -0.25f, 0.125f, 1.0f};
    }
    CacheRun foreign;
    make(otherConfig, foreign);
    SequenceId none;
    error.clear();
    EXPECT_FALSE(foreign.cache->adopt("prefix", none, error));
    std::printf("another configuration: %s\n", error.c_str());
    EXPECT_NE(error.find("prefix"), std::string::npos) << error;
    EXPECT_EQ(foreign.cache->sequences().liveSequences(), 0u);
  }
  // A missing manifest, and a cache without a store.
  EXPECT_FALSE(run.cache->adopt("nothing", again, error));
  EXPECT_FALSE(self.cache->adopt("prefix", again, error));
  EXPECT_NE(error.find("no shared store tier"), std::string::npos) << error;
}

TEST_F(CacheStoreTest, AnAdoptSharesThePagesTheCacheHoldsAlready) {
  CacheRun run;
  make(config, run);
  // 92 tokens: 23 groups in 6 pages of 4 entries, the last one partial.
  const SequenceId s = run.cache->add();
  for (std::int64_t n : {17, 30, 25, 20})
    stepOk(run, {s}, n);
  const History published = run.histories[s];
  std::string error;
  ASSERT_TRUE(run.cache->publish(s, "shared", error)) << error;
  const std::uint64_t reads = run.store->stats().reads;
  SequenceId a;
  ASSERT_TRUE(run.cache->adopt("shared", a, error)) << error;
  // The same page ids, nothing read from the server.
  EXPECT_EQ(run.cache->sequences().blockTable(a),
            run.cache->sequences().blockTable(s));
  EXPECT_EQ(run.cache->sharing().pagesShared, 6u);
  EXPECT_EQ(run.store->stats().reads, reads);
  run.histories[a] = published;
  checkPages(run, a);
  std::mt19937_64 q1(11), q2(11);
  std::vector<std::vector<std::int32_t>> fromA, fromS;
  checkSelect(run, a, q1, &fromA);
  checkSelect(run, s, q2, &fromS);
  EXPECT_EQ(fromA, fromS);

  // Appends to either copy the shared page they write (copy-on-write); the
  // other keeps its entries.
  stepOk(run, {a}, 9);
  stepOk(run, {s}, 5);
  checkPages(run, s);
  checkPages(run, a);
  // The last page changed since the publish: a new adopt shares the other
  // five and reads that one.
  SequenceId b;
  ASSERT_TRUE(run.cache->adopt("shared", b, error)) << error;
  EXPECT_EQ(run.cache->sharing().pagesShared, 11u);
  EXPECT_EQ(run.store->stats().reads - reads, std::uint64_t(config.storedLayers()));
  run.histories[b] = published;
  checkPages(run, b);
  checkPages(run, a);
  checkPages(run, s);

  // A page freed leaves the pages adopt may share: its id's next owner
  // (here another manifest's adopt, which writes it without an append)
  // holds other bytes.
  const std::vector<PageIndex> &rowB = run.cache->sequences().blockTable(b);
  const std::vector<PageIndex> publishedRow(rowB.begin(), rowB.begin() + 5);
  const SequenceId second = run.cache->add();
  stepOk(run, {second}, 92);
  const History secondHistory = run.histories[second];
  ASSERT_TRUE(run.cache->publish(second, "second", error)) << error;
  for (SequenceId id : {second, s, a, b})
    ASSERT_TRUE(run.cache->free(id, error)) << error;
  run.histories.clear();
  SequenceId c, d;
  ASSERT_TRUE(run.cache->adopt("second", c, error)) << error;
  const auto &reused = run.cache->sequences().blockTable(c);
  EXPECT_TRUE(std::any_of(reused.begin(), reused.end(), [&](PageIndex p) {
    return std::count(publishedRow.begin(), publishedRow.end(), p) > 0;
  })) << "the test wants a page id of the first manifest reused";
  ASSERT_TRUE(run.cache->adopt("shared", d, error)) << error;
  EXPECT_EQ(run.cache->sharing().pagesShared, 11u); // none this time
  run.histories[c] = secondHistory;
  run.histories[d] = published;
  checkPages(run, c);
  checkPages(run, d);
}

TEST_F(CacheStoreTest, PagesNothingRefersToAreDeletedFromTheServer) {
  Raw raw(server.port());
  const long long layers = config.storedLayers();
  {
    CacheRun run;
    make(config, run);
    // Rounds of 4 sequences of 80 tokens (20 pages; 14 fit the device and
    // host tiers): each round's oldest pages go to the store tier, then
    // the round's sequences are freed.
    long long most = 0;
    for (int round = 0; round < 3; ++round) {
      std::vector<SequenceId> batch;
      for (int i = 0; i < 4; ++i)
        batch.push_back(run.cache->add());
      for (int i = 0; i < 5; ++i)
        stepOk(run, batch, 16);
      most = std::max(most, raw.pages());
      EXPECT_GT(raw.pages(), 0) << "round " << round;
      for (SequenceId s : batch) {
        std::string error;
        ASSERT_TRUE(run.cache->free(s, error)) << error;
        run.histories.erase(s);
      }
      // The freed pages' store slots gave their references back.
      EXPECT_EQ(raw.pages(), 0) << "round " << round;
    }
    const RedisStats st = run.store->stats();
    EXPECT_EQ(st.deleted, st.released);
    EXPECT_EQ(st.releasesLost, 0u);
    std::printf("server pages: at most %lld during a round (%lld stored "
                "layers a page), 0 after each round's free; %llu deleted\n",
                most, layers, (unsigned long long)st.deleted);

    // A published sequence stays on the server after its cache is gone.
    const SequenceId s = run.cache->add();
    stepOk(run, {s}, 64);
    std::string error;
    ASSERT_TRUE(run.cache->publish(s, "kept", error)) << error;
    ASSERT_TRUE(run.cache->publish(s, "kept-too", error)) << error;
  }
  EXPECT_EQ(raw.pages(), 4 * layers);
  // Another process replaces one manifest and deletes the other: the pages
  // go with the last one.
  CacheRun other;
  make(config, other);
  const SequenceId s = other.cache->add();
  stepOk(other, {s}, 16);
  std::string error;
  ASSERT_TRUE(other.cache->publish(s, "kept", error)) << error;
  EXPECT_EQ(raw.pages(), 5 * layers);
  ASSERT_TRUE(other.cache->unpublish("kept-too", error)) << error;
  EXPECT_EQ(raw.pages(), 1 * layers);
  EXPECT_FALSE(other.cache->unpublish("kept-too", error));
  EXPECT_NE(error.find("no manifest 'kept-too'"), std::string::npos) << error;
  ASSERT_TRUE(other.cache->unpublish("kept", error)) << error;
  EXPECT_EQ(raw.pages(), 0);
  EXPECT_EQ(raw.keys("indexpool:*"), 0);
}

TEST_F(CacheStoreTest, AnOutagePastTheHeldBoundRefusesCallsAndLosesNothing) {
  CacheRun run;
  make(config, run); // storeHeldPages 0: the device tier's 6 pages
  server.stop();     // before any page reached it
  std::string error;
  std::vector<SequenceId> live;
  bool refused = false;
  for (int i = 0; i < 12 && !refused; ++i) {
    live.push_back(run.cache->add());
    if (!step(run, rng, {live.back()}, 32, error))
      refused = true;
  }
  ASSERT_TRUE(refused) << "never reached the bound";
  std::printf("refused: %s\n", error.c_str());
  EXPECT_NE(error.find("storeHeldPages"), std::string::npos) << error;
  EXPECT_NE(error.find("bound is 12"), std::string::npos) << error;
  EXPECT_LE(run.store->stats().overflowPages, 12u);
  // Nothing was lost: every sequence's pages, wherever they are.
  for (auto &[s, history] : run.histories)
    checkPages(run, s, history);
  // The server back: the same call goes through, the held pages drain.
  ASSERT_TRUE(server.start(binary, {}, server.port(), error)) << error;
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  stepOk(run, {live.back()}, 32);
  for (int i = 0; i < 4; ++i)
    stepOk(run, {live.back()}, 16);
  EXPECT_EQ(run.store->stats().overflowPages, 0u);
  std::mt19937_64 queries(9);
  for (auto &[s, history] : run.histories) {
    checkPages(run, s, history);
    checkSelect(run, s, queries);
  }
  // A bound below the device tier is refused.
  CacheConfig small = config;
  small.storeHeldPages = 5;
  EXPECT_NE(small.verify().find("storeHeldPages"), std::string::npos);
}

TEST_F(CacheStoreTest, TheBackgroundCompressorWorksThroughTheStoreTier) {
  // The worker's appends and another thread's selects move pages to and
  // from the store at the same time.
  CacheConfig c = config;
  c.pages = 12;
  c.hostPages = 4;
  CacheRun run;
  make(c, run);
  std::vector<SequenceId> live;
  std::string selectError;
  {
    BackgroundCompressor worker(*run.cache);
    for (int i = 0; i < 6; ++i)
      live.push_back(worker.add());
    std::atomic<bool> done{false};
    std::mt19937_64 queries(rng());
    std::vector<float> q = random(queries, size_t(c.heads * c.dim));
    std::vector<float> w = random(queries, size_t(c.heads));
    std::thread selecting([&] {
      std::vector<std::vector<std::int32_t>> tokens;
      std::string error;
      for (std::uint64_t i = 0; !done; ++i)
        if (!worker.select({live[i % live.size()]}, std::int64_t(i % 2),
                           q.data(), w.data(), tokens, error)) {
          selectError = error;
          return;
        }
    });
    // About 50 tokens a sequence (up to 80: 5 pages), 6 sequences: more
    // than the 16 local pages, so some go to the store.
    for (int round = 0; round < 20; ++round)
      for (SequenceId s : live) {
        const std::int64_t n = std::int64_t(1 + rng() % 4);
        History &h = run.histories[s];
        h.keys.resize(size_t(c.layers));
        h.scores.resize(size_t(c.layers));
        std::vector<std::vector<float>> keys, scores;
        std::vector<const float *> keyPtrs, scorePtrs;
        for (std::int64_t l = 0; l < c.layers; ++l) {
          keys.push_back(random(rng, size_t(n * c.dim)));
          scores.push_back(random(rng, size_t(n)));
          keyPtrs.push_back(keys.back().data());
          scorePtrs.push_back(scores.back().data());
          h.keys[size_t(l)].insert(h.keys[size_t(l)].end(),
                                   keys.back().begin(), keys.back().end());
          h.scores[size_t(l)].insert(h.scores[size_t(l)].end(),
                                     scores.back().begin(),
                                     scores.back().end());
        }
        std::string error;
        ASSERT_TRUE(worker.submit({s}, n, keyPtrs, scorePtrs, error)) << error;
      }
    std::string error;
    EXPECT_TRUE(worker.flush(error)) << error;
    done = true;
    selecting.join();
  }
  EXPECT_EQ(selectError, "");
  std::mt19937_64 queries(rng());
  for (SequenceId s : live) {
    checkPages(run, s);
    checkSelect(run, s, queries);
  }
  const ResidencyStats residency = run.cache->residency();
  const TierStats &store = residency.tiers[storeTier];
  EXPECT_GT(store.pagesIn, 0u);
  EXPECT_GT(store.hits, 0u);
  EXPECT_TRUE(warnings.empty());
}

TEST_F(CacheStoreTest, ASelectReadsItsStoredPagesInOneBatch) {
  const CacheConfig &c = config;
  CacheRun run;
  make(c, run);
  // Four sequences of 5 pages each, 14 local pages: the first one's pages
  // go to the store while the others are appended.
  const SequenceId first = run.cache->add();
  stepOk(run, {first}, 80);
  for (int i = 0; i < 3; ++i)
    stepOk(run, {run.cache->add()}, 80);
  ASSERT_TRUE(inStore(run, first));
  std::int64_t stored = 0;
  for (PageIndex page : run.cache->sequences().blockTable(first))
    stored += run.cache->pageTier(page) == storeTier;
  Raw raw(server.port());
  ASSERT_TRUE(raw.ok(static_cast<redisReply *>(
      redisCommand(raw.context, "CONFIG RESETSTAT"))));
  std::mt19937_64 queries(rng());
  std::vector<float> q = random(queries, size_t(c.heads * c.dim));
  std::vector<float> w = random(queries, size_t(c.heads));
  std::vector<std::int32_t> tokens;
  std::string error;
  ASSERT_TRUE(run.cache->select({first}, 0, q.data(), w.data(), tokens, error))
      << error;
  auto *info = static_cast<redisReply *>(
      redisCommand(raw.context, "INFO commandstats"));
  ASSERT_TRUE(info && info->type == REDIS_REPLY_STRING) << "INFO failed";
  const std::string stats(info->str, info->len);
  freeReplyObject(info);
  // Every stored layer of the stored pages in one MGET, no GET each.
  EXPECT_NE(stats.find("cmdstat_mget:calls=1,"), std::string::npos)
      << stored << " pages from the store; " << stats;
  EXPECT_EQ(stats.find("cmdstat_get:"), std::string::npos) << stats;
  EXPECT_EQ(run.store->stats().failures, 0u);
  checkPages(run, first);
  checkSelect(run, first, queries);
}

TEST_F(CacheStoreTest, ASnapshotRestoresIntoACacheWithAStoreTier) {
  CacheConfig c = config;
  c.bias = "slot"; // in the store's namespace: the restored one must match
  c.biasValues = {0.25f, -0.5f, 0.125f, 1.0f};
  CacheRun run;
  make(c, run);
  std::vector<SequenceId> live;
  for (int i = 0; i < 4; ++i) {
    live.push_back(run.cache->add());
    stepOk(run, {live.back()}, std::int64_t(60 + rng() % 21));
  }
  ASSERT_TRUE(inStore(run, live[0]));
  const std::string path = ::testing::TempDir() + "cache-store-" +
                           std::to_string(::getpid()) + ".snapshot";
  std::string error;
  ASSERT_TRUE(writeSnapshot(*run.cache, path, 7, error)) << error;

  // Restored into a new cache on the same server: its pages are written to
  // the store tier anew, under the original namespace (the bias included).
  CacheRun back;
  std::uint64_t generation = 0;
  CacheConfig asked = c;
  asked.biasValues.clear(); // the snapshot's values count
  back.cache = restoreSnapshot(
      path, asked, makeCpuCacheKernels(c, 2, error), generation, error,
      [&](const CacheConfig &restored, std::string &why) {
        EXPECT_EQ(cacheStoreNamespace(restored), cacheStoreNamespace(c));
        std::unique_ptr<RedisStore> store = makeCacheStore(restored, {}, why);
        back.store = store.get();
        return std::unique_ptr<PageStore>(std::move(store));
      });
  ASSERT_TRUE(back.cache) << error;
  EXPECT_EQ(generation, 7u);
  // The same pages byte for byte (this test's compress_paged check knows
  // no bias), and selects that pass the reference.
  for (std::int64_t l = 0; l < c.storedLayers(); ++l) {
    const std::vector<std::int8_t> ours = back.cache->logicalPages(l),
                                    theirs = run.cache->logicalPages(l);
    const size_t bytes = size_t(c.storedLayerBytes()[size_t(l)]);
    for (SequenceId s : live)
      for (PageIndex page : run.cache->sequences().blockTable(s))
        EXPECT_EQ(0, std::memcmp(&ours[size_t(page) * bytes],
                                 &theirs[size_t(page) * bytes], bytes))
            << "layer " << l << " page " << page;
  }
  std::mt19937_64 queries(rng());
  for (SequenceId s : live)
    checkSelect(back, s, queries);
  EXPECT_TRUE(inStore(back, live[0]) || inStore(back, live[1]));
  EXPECT_GT(back.store->stats().stored + back.store->stats().deduplicated,
            0u);

  // Without a page store for its store tier, the restore is refused.
  EXPECT_FALSE(restoreSnapshot(path, asked, makeCpuCacheKernels(c, 2, error),
                               generation, error));
  EXPECT_NE(error.find("needs a page store"), std::string::npos) << error;
  std::remove(path.c_str());
}

TEST_F(CacheStoreTest, AStoreTierNeedsAStore) {
  std::string error;
  auto kernels = makeCpuCacheKernels(config, 1, error);
  ASSERT_TRUE(kernels) << error;
  EXPECT_FALSE(PagedCache::create(config, std::move(kernels), error));
  EXPECT_NE(error.find("storePages = 40 needs a page store"),
            std::string::npos)
      << error;
  CacheConfig bad = config;
  bad.storeUrl = "http://127.0.0.1";
  EXPECT_FALSE(makeCacheStore(bad, {}, error));
  EXPECT_NE(error.find("the store tier"), std::string::npos) << error;
  // Configurations that differ in a page's bytes get other namespaces.
  CacheConfig t = config;
  t.temperature = 0.7f;
  CacheConfig m = config;
  m.storeModel = "other";
  EXPECT_NE(cacheStoreNamespace(config), cacheStoreNamespace(t));
  EXPECT_NE(cacheStoreNamespace(config), cacheStoreNamespace(m));
}

} // namespace
