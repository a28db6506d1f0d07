//===- CudaCacheTest.cpp - The cache on the CUDA backend, no GPU needed ---===//
//
// With the fake driver (test/FakeCuda: host memory behind the driver's
// API; with INDEXPOOL_FAKE_CUDA_ANY_KERNEL every kernel of a module loads
// and does nothing): the cache's GPU artifacts compile for sm_90 and load,
// artifacts of another configuration are refused, and a cache whose device
// tier is device memory keeps every page's bytes while appends and selects
// move pages between device memory, host memory and a file. The kernels'
// numerics need a GPU (bench/gpu/run-on-device.sh).
//
//===----------------------------------------------------------------------===//

#include "indexpool/CacheCpu/CpuCacheKernels.h"

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

#endif // INDEXPOOL_FAKE_CUDA_PATH
