//===- CacheStore.cpp - A PagedCache's bottom tier on Redis or Valkey -----===//

#include "indexpool/CacheRedis/CacheStore.h"

#include <cstdio>
#include <cstring>

#include <xxhash.h>

using namespace indexpool::cache;

std::string indexpool::cache::cacheStoreNamespace(const CacheConfig &c) {
  // Floats by their bits: two temperatures that print alike still differ.
  auto bits = [](float value) {
    std::uint32_t word;
    std::memcpy(&word, &value, 4);
    char text[16];
    std::snprintf(text, sizeof(text), "%08x", word);
    return std::string(text);
  };
  const XXH128_hash_t bias = XXH3_128bits(
      c.biasValues.data(), c.biasValues.size() * sizeof(float));
  char biasHex[40];
  std::snprintf(biasHex, sizeof(biasHex), "%016llx%016llx",
                (unsigned long long)bias.high64,
                (unsigned long long)bias.low64);
  // v2: pages have reference counts; a v1 process (none) never shares one.
  std::string ns = "indexpool-page-v2 " + std::string(elementTypeName(c.codes)) +
                   " rotate D=" +
                   std::to_string(c.dim) + " P=" + std::to_string(c.poolSize) +
                   " E=" + std::to_string(c.pageEntries) +
                   " refine=" + std::to_string(c.refine) +
                   " scores=" + (c.perChannelScores ? "channel" : "token") +
                   " bias=" + c.bias + ":" + biasHex +
                   " temperature=" + bits(c.temperature) + " layers=";
  for (std::int64_t bytes : c.storedLayerBytes())
    ns += std::to_string(bytes) + ",";
  return ns + " model=" + c.storeModel;
}

std::unique_ptr<RedisStore>
indexpool::cache::makeCacheStore(const CacheConfig &config,
                                 std::function<void(const std::string &)> warn,
                                 std::string &error) {
  if (config.storePages == 0) {
    error = "the store tier: storePages is 0";
    return nullptr;
  }
  RedisOptions options;
  if (!parseRedisUrl(config.storeUrl, options, error)) {
    error = "the store tier: " + error;
    return nullptr;
  }
  options.ns = cacheStoreNamespace(config);
  // The bound counts pages of every stored layer; the store, page layers.
  options.maxHeldPages =
      (config.storeHeldPages ? config.storeHeldPages : config.pages) *
      std::uint64_t(config.storedLayers());
  // Every stored layer, the token tier's too when it stays on host
  // (tokenTier "host"): the tiers never move those pages here, but publish
  // shares them through the same store.
  std::unique_ptr<RedisStore> store =
      makeRedisStore(options, config.storePages, config.storedLayerBytes(),
                     std::move(warn), error);
  if (!store)
    error = "the store tier: " + error;
  return store;
}
