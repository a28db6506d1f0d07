//===- CacheStore.h - A PagedCache's bottom tier on Redis or Valkey -------===//
//
// Builds the RedisStore a PagedCache takes as its "store" tier from the
// cache's configuration: the server from CacheConfig::storeUrl, and a
// namespace from everything that decides a page's bytes, so caches whose
// pages mean different things never share a page or a manifest.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHEREDIS_CACHESTORE_H
#define INDEXPOOL_CACHEREDIS_CACHESTORE_H

#include "indexpool/Cache/CacheConfig.h"
#include "indexpool/CacheRedis/RedisStore.h"

namespace indexpool::cache {

/// The namespace of `config`'s pages: the page format, D, P, E, refine,
/// the scores' width, the bias kind and a hash of its values, the exact
/// temperature, every stored layer's page bytes and storeModel.
std::string cacheStoreNamespace(const CacheConfig &config);

/// A RedisStore of config.storePages slots in every stored layer on the
/// server config.storeUrl names; null with `error` for a bad URL, no
/// storePages, or a server that cannot be reached now. `warn` as in
/// makeRedisStore.
std::unique_ptr<RedisStore>
makeCacheStore(const CacheConfig &config,
               std::function<void(const std::string &)> warn,
               std::string &error);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHEREDIS_CACHESTORE_H
