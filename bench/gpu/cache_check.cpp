//===- cache_check.cpp - The cache runtime on a GPU, checked call by call -===//
//
// indexpool-cache-gpu-check APPEND.json SELECT.json [TOKEN_APPEND.json
// REFINE.json] [STEPS]: a PagedCache on the CUDA backend (the device tier
// in device memory, a host tier and a file tier below it), its artifacts'
// configuration read back from their manifests (with the token tier's two
// artifacts a refine cache, C from their k), runs a decode workload of
// random keys (appends of 1 to 64 tokens, forks, frees, a select of every
// sequence appended to) with every call, the token tier's appends and
// refines included, checked against the float64 reference by
// VerifyingCacheKernels. Prints one summary line and exits 0, or the first
// failing call's error and exits 1. MLIR-free: it runs where only the
// runtime builds (bench/gpu/run-on-device.sh). INDEXPOOL_LIBCUDA_PATH
// picks the driver (the fake one in tests).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/PagedCache.h"
#include "indexpool/CacheCuda/VerifyingCacheKernels.h"
#include "indexpool/Runtime/Manifest.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include <unistd.h>

using namespace indexpool;
using namespace indexpool::cache;

static int fail(const std::string &message) {
  std::fprintf(stderr, "indexpool-cache-gpu-check: %s\n", message.c_str());
  return 1;
}

/// The manifest's text and its binary's bytes.
static bool readArtifact(const std::string &path, std::string &manifestText,
                         std::string &binary, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  manifestText = text.str();
  runtime::Manifest manifest;
  if (!in || !runtime::loadManifest(path, manifest, error) ||
      !runtime::readBinary(manifest, binary, error))
    return false;
  // readBinary ends PTX with a NUL for the driver; fromMemory adds its own.
  if (manifest.binaryFormat == runtime::BinaryFormat::Ptx && !binary.empty() &&
      binary.back() == '\0')
    binary.pop_back();
  return true;
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 6)
    return fail("usage: indexpool-cache-gpu-check APPEND.json SELECT.json "
                "[STEPS], or with the token tier APPEND.json SELECT.json "
                "TOKEN_APPEND.json REFINE.json [STEPS]");
  // Four or five arguments: the token tier's two artifacts come third and
  // fourth.
  const bool tokenTier = argc >= 5;
  const int stepsAt = tokenTier ? 5 : 3;
  const int steps = argc > stepsAt ? std::atoi(argv[stepsAt]) : 60;
  if (steps < 1 || steps > 100000)
    return fail("STEPS must be 1 to 100000");
  std::string error;
  CudaCacheArtifacts artifacts;
  if (!readArtifact(argv[1], artifacts.appendManifest, artifacts.appendBinary,
                    error) ||
      !readArtifact(argv[2], artifacts.selectManifest, artifacts.selectBinary,
                    error) ||
      (tokenTier &&
       (!readArtifact(argv[3], artifacts.tokenAppendManifest,
                      artifacts.tokenAppendBinary, error) ||
        !readArtifact(argv[4], artifacts.refineManifest,
                      artifacts.refineBinary, error))))
    return fail(error);
  CacheConfig config;
  config.layers = 2;
  config.pages = 8; // the device tier: a select or an append fits, not all
  config.hostPages = 8;
  config.filePages = 256;
  config.filePath = "/tmp/indexpool-cache-gpu-check-" + std::to_string(getpid());
  if (!configFromArtifacts(artifacts, config, error))
    return fail(error);
  std::mt19937 rng(2026);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  config.biasValues.resize(size_t(config.biasCount()));
  for (float &b : config.biasValues)
    b = normal(rng);

  std::unique_ptr<runtime::CudaDevice> device = runtime::CudaDevice::open(
      error, 0, getenv("INDEXPOOL_LIBCUDA_PATH") ? getenv("INDEXPOOL_LIBCUDA_PATH") : "");
  if (!device)
    return fail(error);
  VerifiedCalls calls;
  std::unique_ptr<CacheKernels> kernels =
      makeCudaCacheKernels(*device, config, artifacts, error);
  if (kernels)
    kernels = makeVerifyingCacheKernels(std::move(kernels), config, artifacts,
                                        &calls, error);
  std::unique_ptr<PagedCache> cache =
      kernels ? PagedCache::create(config, std::move(kernels), error) : nullptr;
  if (!cache)
    return fail(error);

  auto randoms = [&](size_t n) {
    std::vector<float> v(n);
    for (float &x : v)
      x = normal(rng);
    return v;
  };
  const auto start = std::chrono::steady_clock::now();
  std::vector<SequenceId> live;
  for (int i = 0; i < 4; ++i)
    live.push_back(cache->add());
  const size_t w = size_t(config.scoreWidth()), d = size_t(config.dim);
  for (int step = 0; step < steps; ++step) {
    // Up to 3 sequences shorter than 1500 tokens (6 pages each: a select
    // of one fits the 8 device pages beside nothing else).
    std::vector<SequenceId> batch;
    for (SequenceId s : live)
      if (batch.size() < 3 && rng() % 2 && cache->sequences().length(s) < 1400)
        batch.push_back(s);
    if (batch.empty())
      continue;
    const std::int64_t n = 1 + std::int64_t(rng() % 64);
    std::vector<std::vector<float>> keys, scores;
    std::vector<const float *> k, s;
    for (std::int64_t l = 0; l < config.layers; ++l) {
      keys.push_back(randoms(batch.size() * size_t(n) * d));
      scores.push_back(randoms(batch.size() * size_t(n) * w));
      k.push_back(keys.back().data());
      s.push_back(scores.back().data());
    }
    if (!cache->append(batch, n, k, s, error))
      return fail("step " + std::to_string(step) + ": " + error);
    for (SequenceId seq : batch) {
      std::vector<float> q = randoms(size_t(config.heads) * d),
                         hw = randoms(size_t(config.heads));
      std::vector<std::int32_t> tokens;
      if (!cache->select({seq}, std::int64_t(rng() % 2), q.data(), hw.data(),
                         tokens, error))
        return fail("step " + std::to_string(step) + ": " + error);
    }
    if (step % 20 == 10) {
      SequenceId child;
      if (!cache->fork(live[rng() % live.size()], child, error))
        return fail(error);
      live.push_back(child);
    }
    if (step % 20 == 15 && live.size() > 2) {
      if (!cache->free(live.front(), error))
        return fail(error);
      live.erase(live.begin());
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const ResidencyStats stats = cache->residency();
  // With refine each append and select is two calls, both counted.
  std::string tier;
  if (config.refine > 0)
    tier = " (refine " + std::to_string(config.refine) + ": " +
           std::to_string(calls.tokenAppends.load()) +
           " token-tier appends and " + std::to_string(calls.refines.load()) +
           " refines)";
  std::printf("cache on %s: %llu appends and %llu selects%s verified against "
              "the float64 reference (near-tie swaps %llu, codes one off %llu); "
              "device-tier hits %llu, misses %llu, pages to the file %llu; "
              "%.1f s with the reference\n",
              device->info().describe().c_str(),
              (unsigned long long)calls.appends.load(),
              (unsigned long long)calls.selects.load(), tier.c_str(),
              (unsigned long long)calls.nearTieSwaps.load(),
              (unsigned long long)calls.offByOneCodes.load(),
              (unsigned long long)stats.hits, (unsigned long long)stats.misses,
              (unsigned long long)stats.tiers.back().pagesIn, seconds);
  return 0;
}
