//===- CudaCacheTest.cpp - The cache on the CUDA backend, no GPU needed ---===//
//
// With the fake driver (test/FakeCuda: host memory behind the driver's
// API; with INDEXPOOL_FAKE_CUDA_ANY_KERNEL every kernel of a module loads
// and does nothing): the cache's GPU artifacts compile for sm_90 and load,
// artifacts of another configuration are refused, and a cache whose device
// tier is device memory keeps every page's bytes while appends and selects
// move pages between device memory, host memory and a file. The kernels'
// numerics need a GPU (bench/gpu/run-on-device.sh runs the cache there
// under VerifyingCacheKernels, which this file tests over the CPU kernels,
// the token tier's calls included).
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

  /// Six sequences of 3 pages each, every stored layer's bytes random
  /// (drawn from `seed`), restored into a cache whose 4 device pages are
  /// device memory; `expected` gets the stored layers' bytes. Null with
  /// `error` set otherwise.
  std::unique_ptr<PagedCache>
  restoreSixSequences(unsigned seed,
                      std::vector<std::vector<std::int8_t>> &expected) {
    PagedCache::State state;
    std::mt19937 rng(seed);
    for (std::int64_t bytes : config.storedLayerBytes()) {
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
    expected = state.pages;
    auto kernels = makeCudaCacheKernels(*device, config, artifacts, error);
    if (!kernels)
      return nullptr;
    return PagedCache::restore(config, std::move(kernels), std::move(state),
                               error);
  }

  /// Every stored layer of the six sequences' 18 pages holds `expected`.
  void expectPagesKept(const PagedCache &cache,
                       const std::vector<std::vector<std::int8_t>> &expected) {
    const std::vector<std::int64_t> layerBytes = config.storedLayerBytes();
    for (size_t l = 0; l < layerBytes.size(); ++l) {
      const size_t bytes = size_t(layerBytes[l]);
      const std::vector<std::int8_t> pages =
          cache.logicalPages(std::int64_t(l));
      for (size_t p = 0; p < 18; ++p)
        ASSERT_TRUE(std::equal(pages.begin() + p * bytes,
                               pages.begin() + (p + 1) * bytes,
                               expected[l].begin() + p * bytes))
            << "page " << p << ", stored layer " << l;
    }
  }

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
  std::vector<std::vector<std::int8_t>> expected;
  auto cache = restoreSixSequences(5, expected);
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
  expectPagesKept(*cache, expected);
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
  std::vector<std::vector<std::int8_t>> expected;
  auto cache = restoreSixSequences(7, expected);
  ASSERT_TRUE(cache) << error;
  ASSERT_EQ(expected.size(), size_t(2 * config.layers));
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
  expectPagesKept(*cache, expected);
  // An append runs both tiers' kernels (the fake ones write nothing).
  std::vector<float> keys(size_t(config.dim), 0.25f), scores(1, 0.5f);
  ASSERT_TRUE(cache->append({0}, 1, {keys.data(), keys.data()},
                            {scores.data(), scores.data()}, error))
      << error;
}

TEST_F(CudaCacheTest, TheVerifierReadsTheTokenTierFromDeviceMemory) {
  // refine = 2 on the CUDA backend under the verifier, whose fake kernels
  // compute nothing: a first token of zero keys and scores completes no
  // group and leaves a tail of zeros, as the reference does, so the
  // pooled append passes; the token tier's append must write that token's
  // entry (a scale that is not 0), and the verifier, reading the
  // token-tier layer back from device memory, fails the call.
  config.refine = 2;
  config.filePath = ::testing::TempDir() + "/cuda-verify-" +
                    std::to_string(getpid());
  ASSERT_TRUE(compileCudaCacheArtifacts(config, "sm_90", artifacts, error))
      << error;
  VerifiedCalls calls;
  auto kernels = makeCudaCacheKernels(*device, config, artifacts, error);
  ASSERT_TRUE(kernels) << error;
  kernels = makeVerifyingCacheKernels(std::move(kernels), config, artifacts,
                                      &calls, error);
  ASSERT_TRUE(kernels) << error;
  auto cache = PagedCache::create(config, std::move(kernels), error);
  ASSERT_TRUE(cache) << error;
  const SequenceId s = cache->add();
  std::vector<float> keys(size_t(config.dim), 0.0f), scores(1, 0.0f);
  EXPECT_FALSE(cache->append({s}, 1, {keys.data(), keys.data()},
                             {scores.data(), scores.data()}, error));
  EXPECT_NE(error.find("layer 0 (token tier): append_paged (token tier) "
                       "result #0 differs from the reference"),
            std::string::npos)
      << error;
  EXPECT_EQ(calls.appends.load(), 1u);
  EXPECT_EQ(calls.tokenAppends.load(), 0u);
}

#endif // INDEXPOOL_FAKE_CUDA_PATH

using namespace indexpool;
using namespace indexpool::cache;

namespace {

/// The verifier's configuration: 8 device pages, scores per channel, a
/// channel bias, a temperature; with `refine` the token tier.
CacheConfig verifiedConfig(std::int64_t refine, std::mt19937 &rng) {
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
  config.refine = refine;
  std::normal_distribution<float> normal(0.0f, 1.0f);
  config.biasValues.resize(size_t(config.biasCount()));
  for (float &b : config.biasValues)
    b = normal(rng);
  return config;
}

/// A decode workload over the CPU kernels under the verifier: 24 steps of 1
/// to 7 tokens for 3 sequences, a fork at step 8, a free at step 16, a
/// select of every live sequence per step, pages moving to the host tier
/// and back.
void runVerifiedWorkload(const CacheConfig &config,
                         const CudaCacheArtifacts &artifacts,
                         VerifiedCalls &calls, std::mt19937 &rng) {
  std::string error;
  auto kernels = makeVerifyingCacheKernels(
      makeCpuCacheKernels(config, 2, error), config, artifacts, &calls, error);
  ASSERT_TRUE(kernels) << error;
  auto cache = PagedCache::create(config, std::move(kernels), error);
  ASSERT_TRUE(cache) << error;
  std::vector<SequenceId> live = {cache->add(), cache->add(), cache->add()};
  std::normal_distribution<float> normal(0.0f, 1.0f);
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
  EXPECT_GT(cache->residency().misses, 0u) << "pages came back from the host";
}

// One select per live sequence and step: 3 for 9 steps, 4 for 8, 3 for 7.
constexpr std::uint64_t kWorkloadSelects = 9u * 3 + 8u * 4 + 7u * 3;

} // namespace

// The verifier needs no GPU: over the CPU kernels, every call of a decode
// workload with forks, frees and tier moves is checked by the reference of
// the sm_90 artifacts' computes.
TEST(VerifyingCacheKernels, EveryCallOfTheCpuKernelsPassesTheReference) {
  std::mt19937 rng(11);
  const CacheConfig config = verifiedConfig(0, rng);
  std::string error;
  CudaCacheArtifacts artifacts;
  ASSERT_TRUE(compileCudaCacheArtifacts(config, "sm_90", artifacts, error))
      << error;
  CacheConfig derived;
  derived.refine = 3; // artifacts without a token tier say 0
  ASSERT_TRUE(configFromArtifacts(artifacts, derived, error)) << error;
  EXPECT_EQ(derived.dim, 32);
  EXPECT_EQ(derived.heads, 4);
  EXPECT_EQ(derived.k, 6);
  EXPECT_EQ(derived.pageEntries, 4);
  EXPECT_EQ(derived.bias, "channel");
  EXPECT_TRUE(derived.perChannelScores);
  EXPECT_EQ(derived.temperature, 0.5f);
  EXPECT_EQ(derived.refine, 0);

  VerifiedCalls calls;
  runVerifiedWorkload(config, artifacts, calls, rng);
  if (HasFatalFailure())
    return;
  EXPECT_EQ(calls.appends.load(), 24u * 2);
  EXPECT_EQ(calls.selects.load(), kWorkloadSelects);
  EXPECT_EQ(calls.tokenAppends.load(), 0u);
  EXPECT_EQ(calls.refines.load(), 0u);
}

// The same with the token tier (refine = 2): each append's token-tier
// append and each select's refine_paged are checked too, their pages read
// from the token-tier layers.
TEST(VerifyingCacheKernels, EveryTokenTierCallOfTheCpuKernelsPasses) {
  std::mt19937 rng(13);
  const CacheConfig config = verifiedConfig(2, rng);
  std::string error;
  CudaCacheArtifacts artifacts;
  ASSERT_TRUE(compileCudaCacheArtifacts(config, "sm_90", artifacts, error))
      << error;
  // k and C come back from refine_paged's k (k * P + P - 1) and
  // select_paged's (C * k).
  CacheConfig derived;
  derived.layers = config.layers; // the artifacts serve any layer count
  ASSERT_TRUE(configFromArtifacts(artifacts, derived, error)) << error;
  EXPECT_EQ(derived.k, 6);
  EXPECT_EQ(derived.refine, 2);
  EXPECT_EQ(derived.storedLayerBytes(), config.storedLayerBytes());
  CudaCacheArtifacts halfTier = artifacts;
  halfTier.refineManifest.clear();
  EXPECT_FALSE(configFromArtifacts(halfTier, derived, error));
  EXPECT_NE(error.find("needs both its artifacts"), std::string::npos)
      << error;
  halfTier.tokenAppendManifest.clear();
  EXPECT_FALSE(makeVerifyingCacheKernels(makeCpuCacheKernels(config, 1, error),
                                         config, halfTier, nullptr, error));
  EXPECT_NE(error.find("refine 2 needs the token tier's artifacts"),
            std::string::npos)
      << error;

  VerifiedCalls calls;
  runVerifiedWorkload(config, artifacts, calls, rng);
  if (HasFatalFailure())
    return;
  EXPECT_EQ(calls.appends.load(), 24u * 2);
  EXPECT_EQ(calls.tokenAppends.load(), 24u * 2);
  EXPECT_EQ(calls.selects.load(), kWorkloadSelects);
  EXPECT_EQ(calls.refines.load(), kWorkloadSelects);
}

namespace {

/// Which result WrongKernels gets wrong.
enum class Wrong { PooledCode, SelectToken, TokenTierCode, RefinedToken };

/// The CPU kernels with one wrong byte: a code of every append's first
/// written entry (pooled or token tier), or a token of every select or
/// refine.
class WrongKernels final : public CacheKernels {
public:
  WrongKernels(std::unique_ptr<CacheKernels> inner, Wrong wrong,
               const CacheConfig &config)
      : inner(std::move(inner)), wrong(wrong), config(config) {}
  bool append(const AppendCall &c, std::string &error) override {
    if (!inner->append(c, error))
      return false;
    if (wrong == Wrong::PooledCode)
      flipCode(c.pages, c.lengths[0] / config.poolSize, config.pageEntries,
               c.blockTable);
    return true;
  }
  bool select(const SelectCall &c, std::string &error) override {
    if (!inner->select(c, error))
      return false;
    if (wrong == Wrong::SelectToken)
      c.tokens[0] = c.tokens[0] < 0 ? 0 : -1;
    return true;
  }
  bool appendTokens(const TokenAppendCall &c, std::string &error) override {
    if (!inner->appendTokens(c, error))
      return false;
    // Each token is its own entry, P * E of them a page.
    if (wrong == Wrong::TokenTierCode)
      flipCode(c.pages, c.lengths[0], config.poolSize * config.pageEntries,
               c.blockTable);
    return true;
  }
  bool refine(const RefineCall &c, std::string &error) override {
    if (!inner->refine(c, error))
      return false;
    if (wrong == Wrong::RefinedToken)
      c.tokens[0] = c.tokens[0] < 0 ? 0 : -1;
    return true;
  }

private:
  /// A bit of entry `entry`'s first code, in pages of `perPage` entries
  /// (codes first, D a row).
  void flipCode(std::int8_t *pages, std::int64_t entry, std::int64_t perPage,
                const std::int32_t *blockTable) const {
    const std::int64_t page = blockTable[entry / perPage];
    pages[page * perPage * (config.dim + 4) + (entry % perPage) * config.dim] ^=
        0x40;
  }

  std::unique_ptr<CacheKernels> inner;
  Wrong wrong;
  CacheConfig config;
};

/// A cache of `config` on WrongKernels under the verifier: an append of
/// 40 tokens, then a select; the first call that fails must say `message`.
void expectCaught(const CacheConfig &config,
                  const CudaCacheArtifacts &artifacts, Wrong wrong,
                  const std::string &message) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> keys(size_t(40 * config.dim)), scores(40),
      q(size_t(config.heads * config.dim)), w(size_t(config.heads));
  for (auto *v : {&keys, &scores, &q, &w})
    for (float &x : *v)
      x = normal(rng);
  std::string error;
  auto kernels = makeVerifyingCacheKernels(
      std::make_unique<WrongKernels>(makeCpuCacheKernels(config, 1, error),
                                     wrong, config),
      config, artifacts, nullptr, error);
  ASSERT_TRUE(kernels) << error;
  auto cache = PagedCache::create(config, std::move(kernels), error);
  ASSERT_TRUE(cache) << error;
  SequenceId s = cache->add();
  std::vector<std::int32_t> tokens;
  const bool passed =
      cache->append({s}, 40, {keys.data()}, {scores.data()}, error) &&
      cache->select({s}, 0, q.data(), w.data(), tokens, error);
  EXPECT_FALSE(passed);
  EXPECT_NE(error.find(message), std::string::npos) << error;
}

CacheConfig wrongConfig(std::int64_t refine) {
  CacheConfig config;
  config.dim = 32;
  config.pageEntries = 4;
  config.pages = 16;
  config.heads = 4;
  config.k = 6;
  config.refine = refine;
  return config;
}

} // namespace

TEST(VerifyingCacheKernels, AWrongTokenOrCodeFailsTheCall) {
  const CacheConfig config = wrongConfig(0);
  std::string error;
  CudaCacheArtifacts artifacts;
  ASSERT_TRUE(compileCudaCacheArtifacts(config, "sm_90", artifacts, error))
      << error;
  expectCaught(config, artifacts, Wrong::PooledCode,
               "append_paged result #0 differs from the reference");
  expectCaught(config, artifacts, Wrong::SelectToken,
               "select_paged differs from the reference");
}

TEST(VerifyingCacheKernels, AWrongTokenTierCodeOrRefinedTokenFailsTheCall) {
  const CacheConfig config = wrongConfig(2);
  std::string error;
  CudaCacheArtifacts artifacts;
  ASSERT_TRUE(compileCudaCacheArtifacts(config, "sm_90", artifacts, error))
      << error;
  expectCaught(config, artifacts, Wrong::TokenTierCode,
               "layer 0 (token tier): append_paged (token tier) result #0 "
               "differs from the reference");
  expectCaught(config, artifacts, Wrong::RefinedToken,
               "refine_paged differs from the reference");
}
