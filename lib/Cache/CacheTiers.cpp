//===- CacheTiers.cpp - A cache's tiers from one configuration string -----===//

#include "indexpool/Cache/CacheTiers.h"

#include <cstdint>

using namespace indexpool::cache;

namespace {

// The tiers in the only order a cache stacks them.
enum Tier { Device, Host, File, Store };
const char *const tierNames[] = {"device", "host", "file", "store"};
const char *const countNames[] = {"pages", "hostPages", "filePages",
                                  "storePages"};

std::uint64_t &pagesOf(CacheConfig &config, int tier) {
  switch (tier) {
  case Device:
    return config.pages;
  case Host:
    return config.hostPages;
  case File:
    return config.filePages;
  default:
    return config.storePages;
  }
}

bool isStoreUrl(const std::string &text, size_t pos) {
  return text.compare(pos, 8, "redis://") == 0 ||
         text.compare(pos, 9, "rediss://") == 0;
}

/// A page count: decimal digits only, >= 1, no overflow.
bool parseCount(const std::string &text, std::uint64_t &value) {
  if (text.empty() || text.size() > 19)
    return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    value = value * 10 + std::uint64_t(c - '0');
  }
  return value >= 1;
}

/// `url` with the password after "user:" replaced by "***".
std::string hidePassword(const std::string &url) {
  const size_t scheme = url.find("://");
  const size_t at = url.rfind('@');
  if (scheme == std::string::npos || at == std::string::npos || at < scheme)
    return url;
  const size_t colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at)
    return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

} // namespace

bool indexpool::cache::applyTiers(const std::string &tiers,
                                  CacheConfig &config, std::string &error) {
  auto fail = [&](const std::string &why) {
    error = "tiers '" + hidePassword(tiers) + "': " + why;
    return false;
  };
  if (tiers.empty())
    return fail("an empty list (give at least 'device')");
  CacheConfig out = config;
  bool listed[4] = {false, false, false, false};
  int last = -1;
  size_t pos = 0;
  while (pos < tiers.size() || last < 0) {
    int tier;
    std::string name, count;
    bool hasCount = false;
    if (isStoreUrl(tiers, pos)) {
      // The last tier; the URL is the rest of the text.
      tier = Store;
      out.storeUrl = tiers.substr(pos);
      pos = tiers.size();
    } else {
      size_t comma = tiers.find(',', pos);
      if (comma == std::string::npos)
        comma = tiers.size();
      const std::string item = tiers.substr(pos, comma - pos);
      pos = comma == tiers.size() ? comma : comma + 1;
      if (comma + 1 == tiers.size())
        return fail("a ',' with no tier after it");
      const size_t colon = item.find(':');
      name = item.substr(0, colon);
      hasCount = colon != std::string::npos;
      if (hasCount)
        count = item.substr(colon + 1);
      for (tier = Device; tier < Store && name != tierNames[tier]; ++tier)
        ;
      if (tier == Store)
        return fail("unknown tier '" + name +
                    "' (device, host, file or a redis:// or rediss:// URL)");
    }
    if (last < 0 && tier != Device)
      return fail("the list starts with device (the tier the kernels read)");
    if (listed[tier])
      return fail("'" + std::string(tierNames[tier]) + "' twice");
    if (tier < last)
      return fail("'" + std::string(tierNames[tier]) + "' after '" +
                  tierNames[last] +
                  "' (the order is device, host, file, then a store URL)");
    listed[tier] = true;
    last = tier;
    std::uint64_t &pages = pagesOf(out, tier);
    if (hasCount) {
      if (!parseCount(count, pages))
        return fail("'" + name + ":" + count +
                    "' needs a page count from 1 to 10^19 - 1");
    } else if (pages == 0) {
      return fail("the " + std::string(tierNames[tier]) +
                  " tier has no pages: " +
                  (tier == Store ? std::string("set storePages")
                                 : "write " + name + ":N or set " +
                                       countNames[tier]));
    }
  }
  for (int tier = Host; tier <= Store; ++tier) {
    if (listed[tier])
      continue;
    // Pages for a tier the list leaves out: the caller said two things.
    if (pagesOf(out, tier) != 0 || (tier == Store && !out.storeUrl.empty()))
      return fail(std::string(countNames[tier]) + " is " +
                  std::to_string(pagesOf(out, tier)) + " but the list has no " +
                  tierNames[tier] + " tier");
  }
  config = out;
  return true;
}

std::string indexpool::cache::describeTiers(const CacheConfig &config) {
  std::string text = "device:" + std::to_string(config.pages);
  if (config.hostPages)
    text += ",host:" + std::to_string(config.hostPages);
  if (config.filePages)
    text += ",file:" + std::to_string(config.filePages);
  if (!config.storeUrl.empty())
    text += "," + hidePassword(config.storeUrl);
  return text;
}
