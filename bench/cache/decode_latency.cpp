//===- decode_latency.cpp - Decode-step latency, compression inline or not ===//
//
//   indexpool-bench-decode-latency [STEPS] [NEW_TOKENS]
//
// 8 sequences of 4096 tokens (one layer, D = 128, H = 16, k = 64, the CPU
// kernels with one thread each); every decode step appends NEW_TOKENS
// tokens (default 32: a heavy append load, a prefill chunk or speculative
// tokens) to every sequence and selects for all of them. Inline: append
// (compression) then select, one after the other. Background: submit to
// the BackgroundCompressor, whose worker compresses while the step selects.
// Prints each mode's step latency p50 / p99 and their ratio, measured in
// the same run.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/BackgroundCompressor.h"
#include "indexpool/CacheCpu/CpuCacheKernels.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace indexpool::cache;

namespace {

int fail(const std::string &why) {
  std::fprintf(stderr, "indexpool-bench-decode-latency: error: %s\n",
               why.c_str());
  return 1;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

struct Run {
  std::vector<double> ms;
};

} // namespace

int main(int argc, char **argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 200;
  const int newTokens = argc > 2 ? std::atoi(argv[2]) : 32;
  if (steps < 10 || steps > 100000 || newTokens < 1 || newTokens > 4096)
    return fail("expected STEPS from 10 to 100000 and NEW_TOKENS from 1 to 4096");
  CacheConfig c;
  c.layers = 1;
  c.dim = 128;
  c.poolSize = 4;
  c.pageEntries = 64;
  c.heads = 16;
  c.k = 64;
  const int batch = 8, prefill = 4096;
  c.pages = std::uint64_t(batch) *
            ((prefill + std::uint64_t(steps) * newTokens) / 256 + 2);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto randoms = [&](size_t n) {
    std::vector<float> v(n);
    for (float &x : v)
      x = normal(rng);
    return v;
  };
  std::vector<float> q = randoms(size_t(batch * c.heads * c.dim)),
                     w = randoms(size_t(batch * c.heads));

  std::string error;
  double medians[2], tails[2];
  for (int mode = 0; mode < 2; ++mode) {
    auto cache = PagedCache::create(c, makeCpuCacheKernels(c, 1, error), error);
    if (!cache)
      return fail(error);
    std::vector<SequenceId> seqs;
    for (int b = 0; b < batch; ++b)
      seqs.push_back(cache->add());
    std::vector<float> keys = randoms(size_t(batch) * prefill * size_t(c.dim)),
                       scores = randoms(size_t(batch) * prefill);
    if (!cache->append(seqs, prefill, {keys.data()}, {scores.data()}, error))
      return fail(error);
    // The steps' tokens, drawn before timing.
    std::vector<std::vector<float>> stepKeys, stepScores;
    for (int s = 0; s < steps; ++s) {
      stepKeys.push_back(randoms(size_t(batch * newTokens * c.dim)));
      stepScores.push_back(randoms(size_t(batch * newTokens)));
    }
    std::unique_ptr<BackgroundCompressor> compressor;
    if (mode == 1)
      compressor = std::make_unique<BackgroundCompressor>(*cache);
    Run run;
    std::vector<std::int32_t> tokens;
    std::vector<std::vector<std::int32_t>> rows;
    for (int s = 0; s < steps; ++s) {
      auto t0 = std::chrono::steady_clock::now();
      bool ok;
      if (mode == 0)
        ok = cache->append(seqs, newTokens, {stepKeys[size_t(s)].data()},
                           {stepScores[size_t(s)].data()}, error) &&
             cache->select(seqs, 0, q.data(), w.data(), tokens, error);
      else
        ok = compressor->submit(seqs, newTokens, {stepKeys[size_t(s)].data()},
                                {stepScores[size_t(s)].data()}, error) &&
             compressor->select(seqs, 0, q.data(), w.data(), rows, error);
      if (!ok)
        return fail(error);
      run.ms.push_back(std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - t0)
                           .count());
    }
    if (compressor && !compressor->flush(error))
      return fail(error);
    // The first 10 steps warm up.
    run.ms.erase(run.ms.begin(), run.ms.begin() + 10);
    medians[mode] = percentile(run.ms, 0.5);
    tails[mode] = percentile(run.ms, 0.99);
    std::printf("%-10s step p50 %.3f ms  p99 %.3f ms  (%d steps of %d tokens "
                "x %d sequences)\n",
                mode ? "background" : "inline", medians[mode], tails[mode],
                steps - 10, newTokens, batch);
  }
  std::printf("background vs inline: p50 %.2fx, p99 %.2fx (below 1: faster)\n",
              medians[1] / medians[0], tails[1] / tails[0]);
  return 0;
}
