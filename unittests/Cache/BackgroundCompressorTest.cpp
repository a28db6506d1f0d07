//===- BackgroundCompressorTest.cpp - Compression on a worker thread ------===//
//
// With toy kernels (plain C++ that follows append_paged's layout and tail
// rules exactly, with a trivial "compression": codes = 10 x the group's key
// sums, scale = the group's score sum), so that ThreadSanitizer sees every
// access: every select sees each submitted token exactly once while the
// worker compresses, and afterwards every entry holds what the sequence's
// history gives. The real kernels: PagedCacheTest.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/BackgroundCompressor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

using namespace indexpool::cache;

namespace {

CacheConfig toyConfig() {
  CacheConfig c;
  c.layers = 2;
  c.dim = 8;
  c.poolSize = 4;
  c.pageEntries = 4;
  c.pages = 16384; // the stress test's 2 x 2000 steps of up to 5 sequences
  c.heads = 2;
  c.k = 3;
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

  /// The tail tokens only (no scoring): what the exactly-once check needs.
  bool select(const SelectCall &call, std::string &) override {
    const std::int64_t p = c.poolSize, row = c.k * p + p - 1;
    for (std::int64_t b = 0; b < call.batch; ++b) {
      std::int32_t *out = call.tokens + b * row;
      std::fill(out, out + row, -1);
      const std::int32_t length = call.lengths[b];
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
  for (std::int64_t l = 0; l < c.layers; ++l)
    for (std::int64_t g = 0; g < length / c.poolSize; ++g) {
      std::vector<std::int8_t> codes(size_t(c.dim));
      float scale;
      toyEntry(c, &h.keys[size_t(l)][size_t(g * c.poolSize * c.dim)],
               &h.scores[size_t(l)][size_t(g * c.poolSize)], codes.data(), scale);
      const std::int8_t *base = cache.pageBytes(l).data() +
                                table[size_t(g / c.pageEntries)] * c.pageBytes();
      const std::int64_t e = g % c.pageEntries;
      ASSERT_EQ(0, std::memcmp(base + e * c.dim, codes.data(), size_t(c.dim)))
          << "sequence " << s << " layer " << l << " group " << g;
      float stored;
      std::memcpy(&stored, base + c.pageEntries * c.dim + 4 * e, 4);
      ASSERT_EQ(stored, scale) << "sequence " << s << " group " << g;
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
      for (size_t b = 0; b < live.size(); ++b)
        expectExactlyOnce(rows[b],
                          std::int64_t(histories[live[b]].scores[0].size()),
                          c.poolSize);
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

TEST(BackgroundCompressor, StressThreadsAppendSelectForkFreeAndDrain) {
  // Two owners append to, fork and free their own sequences; a selector
  // reads whatever is live; a drainer reads the whole cache under the
  // lock now and then. Afterwards every entry matches its history.
  auto cache = toyCache();
  const CacheConfig c = toyConfig();
  std::mutex registry;
  std::map<SequenceId, History> histories; // guarded by registry
  std::atomic<bool> done{false};
  std::atomic<int> selects{0}, drains{0};
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
            if (rng() % 2)
              batch.push_back(entry.first);
        }
        if (batch.empty())
          continue;
        std::vector<std::vector<std::int32_t>> rows;
        if (compressor.select(batch, std::int64_t(rng() % 2), q.data(), w.data(),
                              rows, error))
          ++selects;
        else
          ASSERT_NE(error.find("was freed"), std::string::npos) << error;
      }
    });
    std::thread drainer([&] {
      std::string error;
      while (!done) {
        std::uint64_t sum = 0;
        ASSERT_TRUE(compressor.whenDrained(
            [&](const PagedCache &cache) {
              for (std::int64_t l = 0; l < cache.config().layers; ++l)
                for (std::int8_t b : cache.pageBytes(l))
                  sum += std::uint8_t(b);
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
    std::string error;
    ASSERT_TRUE(compressor.flush(error)) << error;
  }
  EXPECT_GT(selects.load(), 0);
  EXPECT_GT(drains.load(), 0);
  for (const auto &[s, h] : histories)
    expectEntries(*cache, s, h);
}
