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
  /// bytes), takes one reference to it for the caller (which a manifest
  /// keeps, or releasePages gives back) and gives its digest; "" with
  /// `error` when it cannot.
  virtual std::string putPage(std::int64_t layer, const std::int8_t *bytes,
                              std::int64_t n, std::string &error) = 0;
  /// One more reference for the caller to each page of `digests` the store
  /// holds; false with `error` naming the first it does not have, and
  /// every reference this call took given back.
  virtual bool referPages(const std::vector<std::string> &digests,
                          std::string &error) = 0;
  /// Gives back one reference to each page of `digests`; a page nothing
  /// refers to any more is deleted.
  virtual void releasePages(const std::vector<std::string> &digests) = 0;
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
  /// A small named blob, refused when read under another namespace. It
  /// keeps the caller's references to the pages of `digests` (one each,
  /// taken by putPage or referPages) until it is replaced or deleted;
  /// the manifest it replaces gives its own back. On failure the caller
  /// still holds them.
  virtual bool putManifest(const std::string &name, const std::string &blob,
                           const std::vector<std::string> &digests,
                           std::string &error) = 0;
  virtual bool getManifest(const std::string &name, std::string &blob,
                           std::string &error) const = 0;
  /// Deletes manifest `name` and gives back its pages' references; false
  /// with `error` when there is none or the store cannot be reached.
  virtual bool deleteManifest(const std::string &name, std::string &error) = 0;
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_SHAREDPAGES_H
