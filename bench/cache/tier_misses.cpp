//===- tier_misses.cpp - What a miss costs a select -----------------------===//
//
//   indexpool-bench-tier-misses [SELECTS]
//
// 32 sequences of 4096 tokens (one layer, D = 128, H = 16, k = 64, E = 64:
// 16 pages each, 512 in all; the CPU kernels with one thread), selected
// one at a time in a Zipf(1.0) order over the sequences. The device tier
// holds all 512 pages (the anchor: no miss), then 256, 128 and 64 with the
// rest in host memory (LRU-2): per fraction the select latency p50 / p99,
// the misses per select and the bytes moved, and the p50 / p99 against the
// anchor, all measured in the same run (interleaved blocks of 100 selects). On the CPU a miss is a memcpy
// between two host arrays; on a GPU it is a copy over the bus.
//
//===----------------------------------------------------------------------===//

#include "indexpool/CacheCpu/CpuCacheKernels.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace indexpool::cache;

namespace {

int fail(const std::string &why) {
  std::fprintf(stderr, "indexpool-bench-tier-misses: error: %s\n", why.c_str());
  return 1;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

} // namespace

int main(int argc, char **argv) {
  const int selects = argc > 1 ? std::atoi(argv[1]) : 2000;
  if (selects < 100 || selects > 1000000)
    return fail("expected SELECTS from 100 to 1000000");
  const int sequences = 32, tokens = 4096;
  CacheConfig c;
  c.layers = 1;
  c.dim = 128;
  c.poolSize = 4;
  c.pageEntries = 64;
  c.heads = 16;
  c.k = 64;
  c.policy = "lru-k";
  const std::uint64_t total = std::uint64_t(sequences) * tokens / 256;
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto randoms = [&](size_t n) {
    std::vector<float> v(n);
    for (float &x : v)
      x = normal(rng);
    return v;
  };
  const std::vector<float> keys = randoms(size_t(sequences) * tokens * size_t(c.dim)),
                           scores = randoms(size_t(sequences) * tokens),
                           q = randoms(size_t(c.heads * c.dim)),
                           w = randoms(size_t(c.heads));
  // The order of the selects: Zipf(1.0) over the sequences, drawn once.
  std::vector<double> weights;
  for (int s = 0; s < sequences; ++s)
    weights.push_back(1.0 / (s + 1));
  std::discrete_distribution<int> zipf(weights.begin(), weights.end());
  std::vector<int> order;
  for (int i = 0; i < selects; ++i)
    order.push_back(zipf(rng));

  // Four caches, the same sequences in each; their selects are measured in
  // interleaved blocks of 100, so that the machine's drift touches all
  // four alike.
  const std::uint64_t fractions[] = {total, total / 2, total / 4, total / 8};
  std::string error;
  std::vector<std::unique_ptr<PagedCache>> caches;
  std::vector<std::vector<SequenceId>> ids(4);
  for (size_t f = 0; f < 4; ++f) {
    c.pages = fractions[f];
    c.hostPages = total - fractions[f];
    caches.push_back(
        PagedCache::create(c, makeCpuCacheKernels(c, 1, error), error));
    if (!caches.back())
      return fail(error);
    for (int s = 0; s < sequences; ++s) {
      ids[f].push_back(caches[f]->add());
      // One sequence at a time: its 16 pages fit any device tier here.
      if (!caches[f]->append({ids[f].back()}, tokens,
                             {keys.data() + size_t(s) * tokens * size_t(c.dim)},
                             {scores.data() + size_t(s) * tokens}, error))
        return fail(error);
    }
  }
  std::vector<ResidencyStats> before;
  for (auto &cache : caches)
    before.push_back(cache->residency());
  std::vector<std::vector<double>> ms(4);
  std::vector<std::int32_t> out;
  for (size_t start = 0; start < order.size(); start += 100)
    for (size_t f = 0; f < 4; ++f)
      for (size_t i = start; i < std::min(order.size(), start + 100); ++i) {
        auto t0 = std::chrono::steady_clock::now();
        if (!caches[f]->select({ids[f][size_t(order[i])]}, 0, q.data(),
                               w.data(), out, error))
          return fail(error);
        ms[f].push_back(std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - t0)
                            .count());
      }
  double anchor50 = 0, anchor99 = 0;
  for (size_t f = 0; f < 4; ++f) {
    const ResidencyStats after = caches[f]->residency();
    ms[f].erase(ms[f].begin(), ms[f].begin() + 50); // warm-up
    const double p50 = percentile(ms[f], 0.5), p99 = percentile(ms[f], 0.99);
    if (f == 0) {
      anchor50 = p50;
      anchor99 = p99;
    }
    const double misses = double(after.misses - before[f].misses) / selects;
    const double moved =
        double(after.tiers[0].bytesIn - before[f].tiers[0].bytesIn);
    std::printf("device tier %3llu of %llu pages: select p50 %.3f ms  p99 %.3f "
                "ms  misses/select %.2f  moved %.1f MiB  vs all resident: "
                "p50 %.2fx  p99 %.2fx\n",
                (unsigned long long)fractions[f], (unsigned long long)total,
                p50, p99, misses, moved / (1 << 20), p50 / anchor50,
                p99 / anchor99);
  }
  return 0;
}
