//===- SharedPages.h - Pages and manifests shared between caches ----------===//
//
// A content-addressed page store that several processes' caches read and
// write (a Redis server, lib/CacheRedis): pages by digest, checked on every
// read, and small named manifests bound to the store's namespace. A
// PagedCache publishes a sequence through it and another adopts it
// (PagedCache::publish / adopt). MLIR-free and hiredis-free.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_SHAREDPAGES_H
#define INDEXPOOL_CACHE_SHAREDPAGES_H

#include <cstdint>
#include <string>
#include <vector>

namespace indexpool::cache {

class SharedPages {
public:
  virtual ~SharedPages();
  /// Stores a page of stored layer `layer` (n bytes, that layer's page
  /// bytes) and gives its digest; "" with `error` when it cannot.
  virtual std::string putPage(std::int64_t layer, const std::int8_t *bytes,
                              std::int64_t n, std::string &error) = 0;
  /// The page of `digest` into `bytes`, hash-checked: a page lost or
  /// changed is an error, never wrong bytes.
  virtual bool getPage(const std::string &digest, std::int64_t layer,
                       std::int8_t *bytes, std::int64_t n,
                       std::string &error) const = 0;
  struct PageRequest {
    std::string digest;
    std::int64_t layer;
    std::int8_t *bytes; // n bytes, the layer's page bytes
    std::int64_t n;
  };
  /// getPage for many pages, in few round trips where the store can (the
  /// default asks one at a time); every page hash-checked. On failure
  /// `failed` is the first request that failed.
  virtual bool getPages(const std::vector<PageRequest> &requests,
                        size_t &failed, std::string &error) const;
  /// The digest of the page the store already holds for its slot `slot`
  /// of `layer` (the cache's store tier), or "": publishing it sends no
  /// bytes.
  virtual std::string pageDigest(std::uint64_t slot,
                                 std::int64_t layer) const = 0;
  /// A small named blob, refused when written under another namespace.
  virtual bool putManifest(const std::string &name, const std::string &blob,
                           std::string &error) = 0;
  virtual bool getManifest(const std::string &name, std::string &blob,
                           std::string &error) const = 0;
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_SHAREDPAGES_H
