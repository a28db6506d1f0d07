//===- CrashWorkload.h - A deterministic decode workload for snapshot tests ===//
//
// Step s of the workload (seeded): appends 1 to 3 tokens of random keys to
// every live sequence, forks one now and then and frees one now and then,
// so that pages are shared, copied on write and reused. The kill -9 child
// (cache-snapshot-child) runs it and snapshots after every step; the test
// replays the same steps to know what each snapshot must hold.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_UNITTESTS_CACHE_CRASHWORKLOAD_H
#define INDEXPOOL_UNITTESTS_CACHE_CRASHWORKLOAD_H

#include "indexpool/Cache/PagedCache.h"

#include <random>

namespace indexpool::cache::crashtest {

inline CacheConfig crashConfig() {
  CacheConfig c;
  c.layers = 2;
  c.dim = 32;
  c.poolSize = 4;
  c.pageEntries = 4;
  c.pages = 256;
  c.heads = 4;
  c.k = 6;
  return c;
}

/// Runs step `step` on `cache` (steps must run in order from 0).
inline bool crashStep(PagedCache &cache, std::uint64_t seed, std::uint64_t step,
                      std::string &error) {
  std::mt19937_64 rng(seed * 1000003 + step);
  const CacheConfig &c = cache.config();
  std::vector<SequenceId> live = cache.sequences().liveIds();
  if (live.size() < 2) {
    live.push_back(cache.add());
  } else if (rng() % 5 == 0 && live.size() < 6) {
    SequenceId child;
    if (!cache.fork(live[rng() % live.size()], child, error))
      return false;
    live.push_back(child);
  } else if (rng() % 7 == 0 || cache.allocator().freePages() < 24) {
    if (!cache.free(live[rng() % live.size()], error))
      return false;
    live = cache.sequences().liveIds();
  }
  const std::int64_t n = 1 + std::int64_t(rng() % 3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::vector<float>> keys(size_t(c.layers)), scores(size_t(c.layers));
  std::vector<const float *> k, s;
  for (std::int64_t l = 0; l < c.layers; ++l) {
    keys[size_t(l)].resize(live.size() * size_t(n * c.dim));
    scores[size_t(l)].resize(live.size() * size_t(n));
    for (float &x : keys[size_t(l)])
      x = normal(rng);
    for (float &x : scores[size_t(l)])
      x = normal(rng);
    k.push_back(keys[size_t(l)].data());
    s.push_back(scores[size_t(l)].data());
  }
  return cache.append(live, n, k, s, error);
}

} // namespace indexpool::cache::crashtest

#endif
