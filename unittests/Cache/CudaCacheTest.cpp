//===- CudaCacheTest.cpp - The cache on the CUDA backend, no GPU needed ---===//
//
// With the fake driver (test/FakeCuda: host memory behind the driver's
// API; with INDEXPOOL_FAKE_CUDA_ANY_KERNEL every kernel of a module loads
// and does nothing): the cache's GPU artifacts compile for sm_90 and load,
// artifacts of another configuration are refused, and a cache whose device
// tier is device memory keeps every page's bytes while appends and selects
// move pages between device memory, host memory and a file. The kernels'
// numerics need a GPU (bench/gpu/run-on-device.sh runs the cache there
// under VerifyingCacheKernels, which this file tests over the CPU kernels).
//
//===----------------------------------------------------------------------===//

#include "indexpool/CacheCpu/CpuCacheKernels.h"
#include "indexpool/CacheCuda/VerifyingCacheKernels.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include <unistd.h>

#ifdef INDEXPOOL_FAKE_CUDA_PATH

using namespace indexpool;
using namespace indexpool::cache;

namespace {

CacheConfig gpuConfig() {
  CacheConfig c;
  c.layers = 2;
  c.dim = 32;
  c.poolSize = 4;
  c.pageEntries = 4;
  c.pages = 4;
  c.hostPages = 4;
  c.filePages = 16;
  c.heads = 4;
  c.k = 6;
  return c;
}

class CudaCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("INDEXPOOL_FAKE_CUDA_ANY_KERNEL", "1", 1);
    device = runtime::CudaDevice::open(error, 0, INDEXPOOL_FAKE_CUDA_PATH);
    ASSERT_TRUE(device) << error;
    ASSERT_TRUE(compileCudaCacheArtifacts(config, "sm_90", artifacts, error))
        << error;
  }
  void TearDown() override { unsetenv("INDEXPOOL_FAKE_CUDA_ANY_KERNEL"); }

  CacheConfig config = gpuConfig();
  CudaCacheArtifacts artifacts;
  std::unique_ptr<runtime::CudaDevice> device;
  std::string error;
};

} // namespace

TEST_F(CudaCacheTest, ArtifactsOfAnotherConfigurationAreRefused) {
  CacheConfig other = config;
  other.dim = 64;
  EXPECT_FALSE(makeCudaCacheKernels(*device, other, artifacts, error));
  EXPECT_NE(error.find("not append_paged and select_paged of this "
                       "configuration (f32 keys, D = 64"),
            std::string::npos)
      << error;
  CudaCacheArtifacts swapped = artifacts;
  std::swap(swapped.appendManifest, swapped.selectManifest);
  std::swap(swapped.appendBinary, swapped.selectBinary);
  EXPECT_FALSE(makeCudaCacheKernels(*device, config, swapped, error));
  CudaCacheArtifacts broken = artifacts;
  broken.appendManifest = "{";
  EXPECT_FALSE(makeCudaCacheKernels(*device, config, broken, error));
  EXPECT_NE(error.find("the cache's GPU kernels"), std::string::npos) << error;
}

TEST_F(CudaCacheTest, PagesKeepTheirBytesThroughDeviceMemoryAndTheTiers) {
  // Six sequences of 3 pages each with random page bytes, restored into a
  // cache whose 4 device pages are device memory; selects and appends of
  // one sequence at a time bring its pages there and push others to host
  // memory and the file.
  config.filePath = ::testing::TempDir() + "/cuda-cache-" +
                    std::to_string(getpid());
  PagedCache::State state;
  std::mt19937 rng(5);
  const size_t pageBytes = size_t(config.pageBytes());
  state.pages.assign(size_t(config.layers),
                     std::vector<std::int8_t>(size_t(config.totalPages()) * pageBytes));
  for (auto &layer : state.pages)
    for (std::int8_t &b : layer)
      b = std::int8_t(rng());
  state.tails.resize(size_t(config.layers));
  for (SequenceId id = 0; id < 6; ++id)
    state.sequences.push_back(
        {id, 3 * config.pageEntries * config.poolSize,
         {PageIndex(3 * id), PageIndex(3 * id + 1), PageIndex(3 * id + 2)}});
  state.nextId = 6;
  const std::vector<std::vector<std::int8_t>> expected = state.pages;
  auto kernels = makeCudaCacheKernels(*device, config, artifacts, error);
  ASSERT_TRUE(kernels) << error;
  auto cache = PagedCache::restore(config, std::move(kernels), std::move(state),
                                   error);
  ASSERT_TRUE(cache) << error;
  std::vector<float> q(size_t(config.heads * config.dim), 0.5f),
      w(size_t(config.heads), 1.0f);
  std::vector<float> keys(size_t(config.dim), 0.25f), scores(1, 0.5f);
  for (int round = 0; round < 3; ++round)
    for (SequenceId s = 0; s < 6; ++s) {
      std::vector<std::int32_t> tokens;
      ASSERT_TRUE(cache->select({s}, round % 2, q.data(), w.data(), tokens,
                                error))
          << error;
      // One token: no group completes, no page is written.
      ASSERT_TRUE(cache->append({s}, 1, {keys.data(), keys.data()},
                                {scores.data(), scores.data()}, error))
          << error;
    }
  const ResidencyStats stats = cache->residency();
  EXPECT_GT(stats.misses, 0u);
  EXPECT_GT(stats.tiers[2].pagesIn, 0u) << "pages reached the file";
  for (std::int64_t l = 0; l < config.layers; ++l) {
    const std::vector<std::int8_t> pages = cache->logicalPages(l);
    for (size_t p = 0; p < 18; ++p)
      ASSERT_TRUE(std::equal(pages.begin() + p * pageBytes,
                             pages.begin() + (p + 1) * pageBytes,
                             expected[size_t(l)].begin() + p * pageBytes))
          << "page " << p << ", layer " << l;
  }
  // The tails came back from the device (the fake kernels leave them).
  EXPECT_EQ(cache->sequences().length(0), 3 * 16 + 3);
}

TEST_F(CudaCacheTest, TheTokenTierLoadsAndItsPagesKeepTheirBytes) {
  // refine = 2: the two more kernels load, appends and selects call all
  // four, and every stored layer (pooled, then token tier) of each page
  // keeps its bytes while pages move between device memory, host memory
  // and the file.
  config.refine = 2;
  config.filePath = ::testing::TempDir() + "/cuda-refine-" +
                    std::to_string(getpid());
  ASSERT_TRUE(compileCudaCacheArtifacts(config, "sm_90", artifacts, error))
      << error;
  PagedCache::State state;
  std::mt19937 rng(7);
  const std::vector<std::int64_t> layerBytes = config.storedLayerBytes();
  ASSERT_EQ(layerBytes.size(), size_t(2 * config.layers));
  for (std::int64_t bytes : layerBytes) {
    state.pages.emplace_back(size_t(config.totalPages()) * size_t(bytes));
    for (std::int8_t &b : state.pages.back())
      b = std::int8_t(rng());
  }
  state.tails.resize(size_t(config.layers));
  for (SequenceId id = 0; id < 6; ++id)
    state.sequences.push_back(
        {id, 3 * config.pageEntries * config.poolSize,
         {PageIndex(3 * id), PageIndex(3 * id + 1), PageIndex(3 * id + 2)}});
  state.nextId = 6;
  const std::vector<std::vector<std::int8_t>> expected = state.pages;
  auto kernels = makeCudaCacheKernels(*device, config, artifacts, error);
  ASSERT_TRUE(kernels) << error;
  auto cache = PagedCache::restore(config, std::move(kernels), std::move(state),
                                   error);
  ASSERT_TRUE(cache) << error;
  std::vector<float> q(size_t(config.heads * config.dim), 0.5f),
      w(size_t(config.heads), 1.0f);
  for (int round = 0; round < 3; ++round)
    for (SequenceId s = 0; s < 6; ++s) {
      std::vector<std::int32_t> tokens;
      ASSERT_TRUE(cache->select({s}, round % 2, q.data(), w.data(), tokens,
                                error))
          << error;
      EXPECT_EQ(tokens.size(), size_t(config.k * config.poolSize +
                                      config.poolSize - 1));
    }
  const ResidencyStats stats = cache->residency();
  EXPECT_GT(stats.misses, 0u);
  EXPECT_GT(stats.tiers[2].pagesIn, 0u) << "pages reached the file";
  for (size_t l = 0; l < layerBytes.size(); ++l) {
    const size_t bytes = size_t(layerBytes[l]);
    const std::vector<std::int8_t> pages =
        cache->logicalPages(std::int64_t(l));
    for (size_t p = 0; p < 18; ++p)
      ASSERT_TRUE(std::equal(pages.begin() + p * bytes,
                             pages.begin() + (p + 1) * bytes,
                             expected[l].begin() + p * bytes))
          << "page " << p << ", stored layer " << l;
  }
  // An append runs both tiers' kernels (the fake ones write nothing).
  std::vector<float> keys(size_t(config.dim), 0.25f), scores(1, 0.5f);
  ASSERT_TRUE(cache->append({0}, 1, {keys.data(), keys.data()},
                            {scores.data(), scores.data()}, error))
      << error;
}

#endif // INDEXPOOL_FAKE_CUDA_PATH

using namespace indexpool;
using namespace indexpool::cache;

// The verifier needs no GPU: over the CPU kernels, every call of a decode
// workload with forks, frees and tier moves is checked by the reference of
// the sm_90 artifacts' computes.
TEST(VerifyingCacheKernels, EveryCallOfTheCpuKernelsPassesTheReference) {
  CacheConfig config;
  config.layers = 2;
  config.dim = 32;
  config.pageEntries = 4;
  config.pages = 8;
  config.hostPages = 24;
  config.heads = 4;
  config.k = 6;
  config.perChannelScores = true;
  config.bias = "channel";
  config.temperature = 0.5f;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  config.biasValues.resize(size_t(config.biasCount()));
  for (float &b : config.biasValues)
    b = normal(rng);
  std::string error;
  CudaCacheArtifacts artifacts;
  ASSERT_TRUE(compileCudaCacheArtifacts(config, "sm_90", artifacts, error))
      << error;
  CacheConfig derived;
  ASSERT_TRUE(configFromArtifacts(artifacts, derived, error)) << error;
  EXPECT_EQ(derived.dim, 32);
  EXPECT_EQ(derived.heads, 4);
  EXPECT_EQ(derived.k, 6);
  EXPECT_EQ(derived.pageEntries, 4);
  EXPECT_EQ(derived.bias, "channel");
  EXPECT_TRUE(derived.perChannelScores);
  EXPECT_EQ(derived.temperature, 0.5f);

  VerifiedCalls calls;
  auto kernels = makeVerifyingCacheKernels(
      makeCpuCacheKernels(config, 2, error), config, artifacts, &calls, error);
  ASSERT_TRUE(kernels) << error;
  auto cache = PagedCache::create(config, std::move(kernels), error);
  ASSERT_TRUE(cache) << error;
  std::vector<SequenceId> live = {cache->add(), cache->add(), cache->add()};
  auto randoms = [&](size_t n) {
    std::vector<float> v(n);
    for (float &x : v)
      x = normal(rng);
    return v;
  };
  for (int step = 0; step < 24; ++step) {
    const std::int64_t n = 1 + step % 7;
    const size_t b = live.size();
    std::vector<float> keys = randoms(b * size_t(n * config.dim)),
                       scores = randoms(b * size_t(n * config.dim));
    ASSERT_TRUE(cache->append(live, n, {keys.data(), keys.data()},
                              {scores.data(), scores.data()}, error))
        << error;
    for (SequenceId s : live) {
      std::vector<float> q = randoms(size_t(config.heads * config.dim)),
                         w = randoms(size_t(config.heads));
      std::vector<std::int32_t> tokens;
      ASSERT_TRUE(cache->select({s}, step % 2, q.data(), w.data(), tokens,
                                error))
          << error;
    }
    if (step == 8) {
      SequenceId child;
      ASSERT_TRUE(cache->fork(live[0], child, error)) << error;
      live.push_back(child);
    }
    if (step == 16) {
      ASSERT_TRUE(cache->free(live[1], error)) << error;
      live.erase(live.begin() + 1);
    }
  }
  EXPECT_EQ(calls.appends.load(), 24u * 2);
  // One select per live sequence and step: 3 for 9 steps, 4 for 8, 3 for 7.
  EXPECT_EQ(calls.selects.load(), 9u * 3 + 8u * 4 + 7u * 3);
  EXPECT_GT(cache->residency().misses, 0u) << "pages came back from the host";
}

namespace {

/// The CPU kernels with one wrong byte: a token of every select, or a code
/// of every append's first written entry.
class WrongKernels final : public CacheKernels {
public:
  WrongKernels(std::unique_ptr<CacheKernels> inner, bool wrongSelect,
               const CacheConfig &config)
      : inner(std::move(inner)), wrongSelect(wrongSelect), config(config) {}
  bool append(const AppendCall &c, std::string &error) override {
    if (!inner->append(c, error))
      return false;
    if (!wrongSelect) {
      const std::int64_t g = c.lengths[0] / config.poolSize;
      const std::int64_t page = c.blockTable[g / config.pageEntries];
      c.pages[page * config.pageBytes() + (g % config.pageEntries) * config.dim] ^= 0x40;
    }
    return true;
  }
  bool select(const SelectCall &c, std::string &error) override {
    if (!inner->select(c, error))
      return false;
    if (wrongSelect)
      c.tokens[0] = c.tokens[0] < 0 ? 0 : -1;
    return true;
  }

private:
  std::unique_ptr<CacheKernels> inner;
  bool wrongSelect;
  CacheConfig config;
};

} // namespace

TEST(VerifyingCacheKernels, AWrongTokenOrCodeFailsTheCall) {
  CacheConfig config;
  config.dim = 32;
  config.pageEntries = 4;
  config.pages = 16;
  config.heads = 4;
  config.k = 6;
  std::string error;
  CudaCacheArtifacts artifacts;
  ASSERT_TRUE(compileCudaCacheArtifacts(config, "sm_90", artifacts, error))
      << error;
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> keys(size_t(40 * config.dim)), scores(40),
      q(size_t(config.heads * config.dim)), w(size_t(config.heads));
  for (auto *v : {&keys, &scores, &q, &w})
    for (float &x : *v)
      x = normal(rng);
  for (bool wrongSelect : {false, true}) {
    auto kernels = makeVerifyingCacheKernels(
        std::make_unique<WrongKernels>(makeCpuCacheKernels(config, 1, error),
                                       wrongSelect, config),
        config, artifacts, nullptr, error);
    ASSERT_TRUE(kernels) << error;
    auto cache = PagedCache::create(config, std::move(kernels), error);
    ASSERT_TRUE(cache) << error;
    SequenceId s = cache->add();
    const bool appended =
        cache->append({s}, 40, {keys.data()}, {scores.data()}, error);
    if (!wrongSelect) {
      EXPECT_FALSE(appended);
      EXPECT_NE(error.find("append_paged result #0 differs from the "
                           "reference"),
                std::string::npos)
          << error;
      continue;
    }
    ASSERT_TRUE(appended) << error;
    std::vector<std::int32_t> tokens;
    EXPECT_FALSE(cache->select({s}, 0, q.data(), w.data(), tokens, error));
    EXPECT_NE(error.find("select_paged differs from the reference"),
              std::string::npos)
        << error;
  }
}
