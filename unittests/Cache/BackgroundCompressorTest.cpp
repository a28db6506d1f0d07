//===- BackgroundCompressorTest.cpp - Compression on a worker thread ------===//
//
// With toy kernels (plain C++ that follows append_paged's layout and tail
// rules exactly, with a trivial "compression": codes = 10 x the group's key
// sums, scale = the group's score sum; the toy select ranks every entry by
// the scale it reads from the pages), so that ThreadSanitizer sees every
// access: every select sees each submitted token exactly once, ranked as
// the history says, while the worker compresses and pages move between
// tiers, and afterwards every entry holds what the sequence's history
// gives. The real kernels: PagedCacheTest.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/BackgroundCompressor.h"
#ifdef INDEXPOOL_HAVE_SNAPSHOTS
#include "indexpool/Cache/Snapshot.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>

#include <unistd.h>

using namespace indexpool::cache;

namespace {

CacheConfig toyConfig() {
  CacheConfig c;
  c.layers = 2;
  c.dim = 8;
  c.poolSize = 4;
  c.pageEntries = 64;
  c.pages = 1024; // the stress test's 2 x 2000 steps of up to 5 sequences
  c.heads = 2;
  c.k = 1600; // at least the groups of any sequence: selects rank them all
  return c;
}

/// The toy entry of one group of P tokens: codes and scale.
void toyEntry(const CacheConfig &c, const float *keys, const float *scores,
              std::int8_t *codes, float &scale) {
  for (std::int64_t ch = 0; ch < c.dim; ++ch) {
    float sum = 0;
    for (std::int64_t p = 0; p < c.poolSize; ++p)
      sum += keys[p * c.dim + ch];
    codes[ch] = std::int8_t(std::max(-127.0f, std::min(127.0f, std::round(10 * sum))));
  }
  scale = 0;
  for (std::int64_t p = 0; p < c.poolSize; ++p)
    scale += scores[p];
}

class ToyKernels final : public CacheKernels {
public:
  explicit ToyKernels(const CacheConfig &c) : c(c) {}

  bool append(const AppendCall &call, std::string &) override {
    const std::int64_t d = c.dim, p = c.poolSize, e = c.pageEntries;
    for (std::int64_t b = 0; b < call.batch; ++b) {
      const std::int64_t length = call.lengths[b], tail = length % p;
      std::vector<float> keys(call.tailKeys + b * (p - 1) * d,
                              call.tailKeys + (b * (p - 1) + tail) * d);
      std::vector<float> scores(call.tailScores + b * (p - 1),
                                call.tailScores + b * (p - 1) + tail);
      keys.insert(keys.end(), call.keys + b * call.newTokens * d,
                  call.keys + (b + 1) * call.newTokens * d);
      scores.insert(scores.end(), call.scores + b * call.newTokens,
                    call.scores + (b + 1) * call.newTokens);
      const std::int64_t groups = std::int64_t(scores.size()) / p;
      for (std::int64_t i = 0; i < groups; ++i) {
        const std::int64_t g = length / p + i;
        const std::int64_t page = call.blockTable[b * call.maxPages + g / e];
        std::int8_t *base = call.pages + page * c.pageBytes();
        float scale;
        toyEntry(c, &keys[size_t(i * p * d)], &scores[size_t(i * p)],
                 base + (g % e) * d, scale);
        std::memcpy(base + e * d + 4 * (g % e), &scale, 4);
      }
      std::copy(keys.begin() + groups * p * d, keys.end(),
                call.tailKeys + b * (p - 1) * d);
      std::copy(scores.begin() + groups * p, scores.end(),
                call.tailScores + b * (p - 1));
    }
    return true;
  }

  /// The k entries with the largest scales read from the pages (ties to
  /// the smaller group), expanded to their tokens, then the tail tokens.
  bool select(const SelectCall &call, std::string &) override {
    const std::int64_t p = c.poolSize, e = c.pageEntries, d = c.dim,
                       row = c.k * p + p - 1;
    for (std::int64_t b = 0; b < call.batch; ++b) {
      std::int32_t *out = call.tokens + b * row;
      std::fill(out, out + row, -1);
      const std::int32_t length = call.lengths[b];
      std::vector<std::pair<float, std::int64_t>> ranked;
      for (std::int64_t g = 0; g < length / p; ++g) {
        const std::int64_t page = call.blockTable[b * call.maxPages + g / e];
        float scale;
        std::memcpy(&scale, call.pages + page * c.pageBytes() + e * d + 4 * (g % e),
                    4);
        ranked.push_back({-scale, g});
      }
      std::sort(ranked.begin(), ranked.end());
      for (std::int64_t j = 0; j < std::min<std::int64_t>(c.k, ranked.size()); ++j)
        for (std::int64_t i = 0; i < p; ++i)
          out[j * p + i] = std::int32_t(ranked[size_t(j)].second * p + i);
      for (std::int32_t t = length - length % std::int32_t(p), i = 0; t < length;
           ++t, ++i)
        out[c.k * p + i] = t;
    }
    return true;
  }

private:
  CacheConfig c;
};

struct History {
  std::vector<std::vector<float>> keys, scores; // per layer
};

void record(History &h, const CacheConfig &c, size_t b, std::int64_t n,
            const std::vector<std::vector<float>> &keys,
            const std::vector<std::vector<float>> &scores) {
  h.keys.resize(size_t(c.layers));
  h.scores.resize(size_t(c.layers));
  for (size_t l = 0; l < size_t(c.layers); ++l) {
    const float *k = keys[l].data() + b * size_t(n * c.dim);
    h.keys[l].insert(h.keys[l].end(), k, k + n * c.dim);
    const float *s = scores[l].data() + b * size_t(n);
    h.scores[l].insert(h.scores[l].end(), s, s + n);
  }
}

/// Every complete group's entry holds the toy compression of the history.
void expectEntries(const PagedCache &cache, SequenceId s, const History &h) {
  const CacheConfig &c = cache.config();
  const std::int64_t length = cache.sequences().length(s);
  ASSERT_EQ(std::int64_t(h.scores.empty() ? 0 : h.scores[0].size()), length);
  const auto &table = cache.sequences().blockTable(s);
  for (std::int64_t l = 0; l < c.layers; ++l) {
    const std::vector<std::int8_t> pages = cache.logicalPages(l);
    for (std::int64_t g = 0; g < length / c.poolSize; ++g) {
      std::vector<std::int8_t> codes(size_t(c.dim));
      float scale;
      toyEntry(c, &h.keys[size_t(l)][size_t(g * c.poolSize * c.dim)],
               &h.scores[size_t(l)][size_t(g * c.poolSize)], codes.data(), scale);
      const std::int8_t *base =
          pages.data() + table[size_t(g / c.pageEntries)] * c.pageBytes();
      const std::int64_t e = g % c.pageEntries;
      ASSERT_EQ(0, std::memcmp(base + e * c.dim, codes.data(), size_t(c.dim)))
          << "sequence " << s << " layer " << l << " group " << g;
      float stored;
      std::memcpy(&stored, base + c.pageEntries * c.dim + 4 * e, 4);
      ASSERT_EQ(stored, scale) << "sequence " << s << " group " << g;
    }
  }
}

/// The ids of one select row (non-negative) are distinct and exactly the
/// range [start, submitted) for some start that is a multiple of P: the
/// committed tail, then the front buffer (the toy select keeps no pooled
/// entry, so a row whose tokens are all in whole groups has no id).
void expectExactlyOnce(const std::vector<std::int32_t> &row,
                       std::int64_t submitted, std::int64_t p) {
  std::set<std::int32_t> ids;
  for (std::int32_t t : row)
    if (t >= 0)
      ASSERT_TRUE(ids.insert(t).second) << "token " << t << " twice";
  if (ids.empty()) {
    EXPECT_EQ(submitted % p, 0) << "the last " << submitted % p
                                << " tokens are missing";
    return;
  }
  EXPECT_EQ(*ids.rbegin(), submitted - 1);
  EXPECT_EQ(*ids.begin() % p, 0);
  EXPECT_EQ(std::int64_t(ids.size()), submitted - *ids.begin());
}

/// The toy scale of group g in `layer` of a history (toyEntry's sum).
float historyScale(const History &h, std::int64_t layer, std::int64_t g,
                   std::int64_t p) {
  float scale = 0;
  for (std::int64_t i = 0; i < p; ++i)
    scale += h.scores[size_t(layer)][size_t(g * p + i)];
  return scale;
}

/// A select row of `layer` when the sequence's history is `h` (possibly
/// longer than what was submitted before the select): each token once, all
/// of [0, submitted), the pooled groups ranked by their scales as the
/// history gives them (ties to the smaller group).
void expectRanked(const std::vector<std::int32_t> &row, const History &h,
                  std::int64_t layer, const CacheConfig &c) {
  std::set<std::int32_t> ids;
  for (std::int32_t t : row)
    if (t >= 0)
      ASSERT_TRUE(ids.insert(t).second) << "token " << t << " twice";
  const std::int64_t known = h.scores.empty() ? 0 : h.scores[0].size();
  if (ids.empty())
    return;
  ASSERT_EQ(*ids.begin(), 0) << "a prefix is missing";
  ASSERT_EQ(std::int64_t(ids.size()), std::int64_t(*ids.rbegin()) + 1)
      << "a token in the middle is missing";
  ASSERT_LT(std::int64_t(*ids.rbegin()), known);
  const std::int64_t p = c.poolSize;
  for (std::int64_t j = 0; j + 1 < c.k && row[size_t((j + 1) * p)] >= 0; ++j) {
    const std::int64_t g = row[size_t(j * p)] / p, next = row[size_t((j + 1) * p)] / p;
    const float a = historyScale(h, layer, g, p), b = historyScale(h, layer, next, p);
    ASSERT_TRUE(a > b || (a == b && g < next))
        << "groups " << g << " and " << next << " out of order";
  }
}

std::unique_ptr<PagedCache> toyCache() {
  std::string error;
  auto cache = PagedCache::create(toyConfig(),
                                  std::make_unique<ToyKernels>(toyConfig()), error);
  EXPECT_TRUE(cache) << error;
  return cache;
}

std::vector<std::vector<float>> randomLayers(std::mt19937 &rng, size_t n) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::vector<float>> v(size_t(toyConfig().layers),
                                    std::vector<float>(n));
  for (auto &layer : v)
    for (float &x : layer)
      x = normal(rng);
  return v;
}

std::vector<const float *> pointers(const std::vector<std::vector<float>> &v) {
  std::vector<const float *> p;
  for (const auto &x : v)
    p.push_back(x.data());
  return p;
}

} // namespace

TEST(BackgroundCompressor, EverySelectSeesEachTokenOnce) {
  auto cache = toyCache();
  const CacheConfig c = toyConfig();
  std::map<SequenceId, History> histories;
  std::mt19937 rng(1);
  std::string error;
  {
    BackgroundCompressor compressor(*cache);
    std::vector<SequenceId> live{compressor.add(), compressor.add(),
                                 compressor.add()};
    std::vector<float> q(live.size() * size_t(c.heads * c.dim), 0.5f),
        w(live.size() * size_t(c.heads), 1.0f);
    for (int step = 0; step < 300; ++step) {
      const std::int64_t n = 1 + step % 3;
      auto keys = randomLayers(rng, live.size() * size_t(n * c.dim));
      auto scores = randomLayers(rng, live.size() * size_t(n));
      ASSERT_TRUE(compressor.submit(live, n, pointers(keys), pointers(scores),
                                    error))
          << error;
      for (size_t b = 0; b < live.size(); ++b)
        record(histories[live[b]], c, b, n, keys, scores);
      std::vector<std::vector<std::int32_t>> rows;
      ASSERT_TRUE(compressor.select(live, step % 2, q.data(), w.data(), rows,
                                    error))
          << error;
      for (size_t b = 0; b < live.size(); ++b) {
        expectExactlyOnce(rows[b],
                          std::int64_t(histories[live[b]].scores[0].size()),
                          c.poolSize);
        expectRanked(rows[b], histories[live[b]], step % 2, c);
      }
      if (step == 100) {
        SequenceId child;
        ASSERT_TRUE(compressor.fork(live[0], child, error)) << error;
        histories[child] = histories[live[0]];
        live.push_back(child);
        q.resize(live.size() * size_t(c.heads * c.dim), 0.5f);
        w.resize(live.size() * size_t(c.heads), 1.0f);
      }
      if (step == 200) {
        ASSERT_TRUE(compressor.free(live[1], error)) << error;
        histories.erase(live[1]);
        live.erase(live.begin() + 1);
      }
    }
    ASSERT_TRUE(compressor.flush(error)) << error;
    for (SequenceId s : live)
      EXPECT_EQ(compressor.length(s), cache->sequences().length(s));
  }
  for (const auto &[s, h] : histories)
    expectEntries(*cache, s, h);
}

namespace {

/// The first `length` tokens of a history.
History prefix(const History &h, std::int64_t length) {
  History out = h;
  for (auto &keys : out.keys)
    keys.resize(size_t(length) * (keys.size() / std::max<size_t>(
                                      1, h.scores[0].size())));
  for (auto &scores : out.scores)
    scores.resize(size_t(length));
  return out;
}

/// Two owners append to, fork and free their own sequences; a selector
/// reads up to `maxBatch` live sequences at once and checks every row; a
/// drainer reads the whole cache under the lock now and then (and writes
/// an incremental snapshot to `snapshot`, if given). Afterwards every
/// entry matches its history, and the last snapshot restores to the
/// histories' prefixes.
void stress(const CacheConfig &c, size_t maxBatch, const std::string &snapshot) {
  std::string error;
  auto cache = PagedCache::create(c, std::make_unique<ToyKernels>(c), error);
  ASSERT_TRUE(cache) << error;
  std::mutex registry;
  // Guarded by registry: the live sequences' histories, and the freed ones'.
  std::map<SequenceId, History> histories, freed;
  std::atomic<bool> done{false};
  std::atomic<int> selects{0}, drains{0};
  // The drainer's: the lengths at its last snapshot.
  std::map<SequenceId, std::int64_t> snapshotLengths;
  {
    BackgroundCompressor compressor(*cache);
    auto owner = [&](unsigned seed) {
      std::mt19937 rng(seed);
      std::string error;
      std::vector<SequenceId> mine;
      for (int i = 0; i < 3; ++i) {
        SequenceId s = compressor.add();
        std::lock_guard<std::mutex> g(registry);
        histories[s];
        mine.push_back(s);
      }
      for (int step = 0; step < 2000; ++step) {
        const std::int64_t n = 1 + std::int64_t(rng() % 3);
        auto keys = randomLayers(rng, mine.size() * size_t(n * c.dim));
        auto scores = randomLayers(rng, mine.size() * size_t(n));
        {
          // The history before the tokens can be compressed, so the final
          // check sees them in order.
          std::lock_guard<std::mutex> g(registry);
          for (size_t b = 0; b < mine.size(); ++b)
            record(histories[mine[b]], c, b, n, keys, scores);
        }
        ASSERT_TRUE(compressor.submit(mine, n, pointers(keys), pointers(scores),
                                      error))
            << error;
        if (step % 50 == 25 && mine.size() < 5) {
          std::lock_guard<std::mutex> g(registry);
          SequenceId parent = mine[rng() % mine.size()], child;
          ASSERT_TRUE(compressor.fork(parent, child, error)) << error;
          histories[child] = histories[parent];
          mine.push_back(child);
        }
        if (step % 70 == 69 && mine.size() > 2) {
          SequenceId gone = mine.front();
          ASSERT_TRUE(compressor.free(gone, error)) << error;
          std::lock_guard<std::mutex> g(registry);
          freed[gone] = std::move(histories[gone]);
          histories.erase(gone);
          mine.erase(mine.begin());
        }
      }
    };
    std::thread selector([&] {
      std::mt19937 rng(3);
      std::string error;
      std::vector<float> q(64 * size_t(c.heads * c.dim), 0.25f),
          w(64 * size_t(c.heads), 1.0f);
      while (!done) {
        std::vector<SequenceId> batch;
        {
          std::lock_guard<std::mutex> g(registry);
          for (const auto &entry : histories)
            if (rng() % 2 && batch.size() < maxBatch)
              batch.push_back(entry.first);
        }
        if (batch.empty())
          continue;
        std::vector<std::vector<std::int32_t>> rows;
        const std::int64_t layer = std::int64_t(rng() % 2);
        if (!compressor.select(batch, layer, q.data(), w.data(), rows, error)) {
          ASSERT_NE(error.find("was freed"), std::string::npos) << error;
          continue;
        }
        ++selects;
        std::lock_guard<std::mutex> g(registry);
        for (size_t b = 0; b < batch.size(); ++b) {
          auto it = histories.find(batch[b]);
          const History &h = it != histories.end() ? it->second : freed[batch[b]];
          expectRanked(rows[b], h, layer, c);
        }
      }
    });
#ifdef INDEXPOOL_HAVE_SNAPSHOTS
    SnapshotWriter writer(snapshot, 3);
#endif
    std::thread drainer([&] {
      std::string error;
      while (!done) {
        std::uint64_t sum = 0;
        ASSERT_TRUE(compressor.whenDrained(
            [&](const PagedCache &cache) {
              for (std::int64_t l = 0; l < cache.config().layers; ++l)
                for (std::int8_t b : cache.logicalPages(l))
                  sum += std::uint8_t(b);
#ifdef INDEXPOOL_HAVE_SNAPSHOTS
              if (!snapshot.empty()) {
                if (!writer.write(cache, std::uint64_t(drains), error))
                  return false;
                snapshotLengths.clear();
                for (SequenceId s : cache.sequences().liveIds())
                  snapshotLengths[s] = cache.sequences().length(s);
              }
#endif
              return true;
            },
            error))
            << error;
        ++drains;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
    std::thread a(owner, 11), b(owner, 12);
    a.join();
    b.join();
    done = true;
    selector.join();
    drainer.join();
    ASSERT_TRUE(compressor.flush(error)) << error;
  }
  EXPECT_GT(selects.load(), 0);
  EXPECT_GT(drains.load(), 0);
  for (const auto &[s, h] : histories)
    expectEntries(*cache, s, h);
  if (c.hostPages) {
    const ResidencyStats stats = cache->residency();
    EXPECT_GT(stats.misses, 0u) << "pages came back from lower tiers";
    EXPECT_GT(stats.tiers.back().pagesIn, 0u) << "pages reached the last tier";
    for (const TierStats &t : stats.tiers)
      std::printf("%s: %llu of %llu pages resident, %llu hits, %llu pages in, "
                  "%llu out\n",
                  t.name.c_str(), (unsigned long long)t.resident,
                  (unsigned long long)t.pages, (unsigned long long)t.hits,
                  (unsigned long long)t.pagesIn, (unsigned long long)t.pagesOut);
  }
#ifdef INDEXPOOL_HAVE_SNAPSHOTS
  if (snapshot.empty())
    return;
  CacheConfig other = c;
  other.filePath += ".restored";
  std::uint64_t generation;
  auto restored = restoreSnapshot(snapshot, other,
                                  std::make_unique<ToyKernels>(c), generation,
                                  error);
  ASSERT_TRUE(restored) << error;
  ASSERT_FALSE(snapshotLengths.empty());
  EXPECT_EQ(restored->sequences().liveIds().size(), snapshotLengths.size());
  for (const auto &[s, length] : snapshotLengths) {
    auto it = histories.find(s);
    const History &h = it != histories.end() ? it->second : freed[s];
    ASSERT_EQ(restored->sequences().length(s), length);
    expectEntries(*restored, s, prefix(h, length));
  }
  std::remove(snapshot.c_str());
  for (std::uint64_t i = 1; i <= 3; ++i)
    std::remove(incrementPath(snapshot, i).c_str());
#endif
}

} // namespace

TEST(BackgroundCompressor, StressThreadsAppendSelectForkFreeAndDrain) {
  stress(toyConfig(), 64, "");
}

TEST(BackgroundCompressor, StressWithEvictionAcrossTiersAndSnapshots) {
  // 32 device pages, 8 in host memory, the rest in a file: the ~10 live
  // sequences (about 50 pages together, a sequence at most 24) do not fit
  // the device tier, so pages move down and come back while the selector
  // reads them one sequence at a time. A select or an append that would
  // not fit beside the pages the other one pins waits for it.
  CacheConfig c = toyConfig();
  c.pages = 32;
  c.hostPages = 8;
  c.filePages = 1024;
  c.filePath = ::testing::TempDir() + "/stress-tier-" + std::to_string(getpid());
  c.policy = "lru-k:2:8";
  stress(c, 1,
         ::testing::TempDir() + "/stress-snapshot-" + std::to_string(getpid()));
}
