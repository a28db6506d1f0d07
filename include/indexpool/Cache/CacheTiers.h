//===- CacheTiers.h - A cache's tiers from one configuration string -------===//
//
// Serving engines configure a cache from a text option; "tiers" names its
// memory tiers top to bottom, as a list:
//
//   device[:N],host[:N],file[:N],redis://[user[:password]@]host[:port][/db]
//
// device comes first and is always there; host, file and the store URL
// (redis:// or rediss://) each at most once, in that order, any of them
// left out. ":N" sets that tier's pages; without it the tier keeps the
// configuration's count, which must not be 0. A tier left out gets 0
// pages: the list is the whole set of tiers. The store's pages are always
// CacheConfig::storePages (a URL has no room for a count); the URL is the
// rest of the text, so a password may hold ','.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_CACHETIERS_H
#define INDEXPOOL_CACHE_CACHETIERS_H

#include "indexpool/Cache/CacheConfig.h"

namespace indexpool::cache {

/// Sets `config`'s pages, hostPages, filePages, storeUrl (and checks
/// storePages) from `tiers`; false with `error` (naming the tier and never
/// the URL's password) and `config` unchanged for a bad list.
bool applyTiers(const std::string &tiers, CacheConfig &config,
                std::string &error);

/// `config`'s tiers as applyTiers reads them, the counts written out and
/// the store URL's password hidden ("redis://user:***@host").
std::string describeTiers(const CacheConfig &config);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_CACHETIERS_H
