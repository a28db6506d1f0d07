//===- CacheTiersTest.cpp - The "tiers" configuration string --------------===//

#include "indexpool/Cache/CacheTiers.h"

#include <gtest/gtest.h>

using namespace indexpool::cache;

namespace {

CacheConfig withDefaults() {
  CacheConfig config;
  config.pages = 1024;
  config.storePages = 0;
  return config;
}

TEST(CacheTiersTest, ListedTiersTakeTheirCountsAndTheStoreUrlIsTheRest) {
  CacheConfig config = withDefaults();
  config.storePages = 512;
  std::string error;
  ASSERT_TRUE(applyTiers("device:64,host:4096,file:9,"
                         "redis://app:se,cr@t@127.0.0.1:6390/2",
                         config, error))
      << error;
  EXPECT_EQ(config.pages, 64u);
  EXPECT_EQ(config.hostPages, 4096u);
  EXPECT_EQ(config.filePages, 9u);
  EXPECT_EQ(config.storePages, 512u);
  // The password holds ',': the URL is everything after the last tier.
  EXPECT_EQ(config.storeUrl, "redis://app:se,cr@t@127.0.0.1:6390/2");
  EXPECT_EQ(config.totalPages(), 64u + 4096u + 9u + 512u);
  const std::string described = describeTiers(config);
  EXPECT_EQ(described, "device:64,host:4096,file:9,redis://app:***@127.0.0.1:6390/2");
}

TEST(CacheTiersTest, ATierWithoutACountKeepsTheConfigurationsCount) {
  CacheConfig config = withDefaults();
  config.hostPages = 300;
  std::string error;
  ASSERT_TRUE(applyTiers("device,host", config, error)) << error;
  EXPECT_EQ(config.pages, 1024u);
  EXPECT_EQ(config.hostPages, 300u);
  EXPECT_EQ(config.filePages, 0u);
  EXPECT_TRUE(config.storeUrl.empty());
  // What describeTiers writes, applyTiers reads back to the same tiers.
  CacheConfig again = withDefaults();
  ASSERT_TRUE(applyTiers(describeTiers(config), again, error)) << error;
  EXPECT_EQ(again.pages, config.pages);
  EXPECT_EQ(again.hostPages, config.hostPages);
}

TEST(CacheTiersTest, BadListsAreRefusedNamingTheTierAndLeaveTheConfiguration) {
  struct Case {
    const char *tiers;
    const char *expected;
    std::uint64_t hostPages, storePages;
  };
  const Case cases[] = {
      {"", "an empty list", 0, 0},
      {"host:4", "starts with device", 0, 0},
      {"device,gpu:4", "unknown tier 'gpu'", 0, 0},
      {"device,file:2,host:3", "'host' after 'file'", 0, 0},
      {"device,host:2,host:3", "'host' twice", 0, 0},
      {"device,host", "the host tier has no pages: write host:N", 0, 0},
      {"device,host:0", "'host:0' needs a page count", 0, 0},
      {"device,host:-3", "'host:-3' needs a page count", 0, 0},
      {"device,host:99999999999999999999", "needs a page count", 0, 0},
      {"device:", "'device:' needs a page count", 0, 0},
      {"device,", "a ',' with no tier after it", 0, 0},
      {"device", "hostPages is 7 but the list has no host tier", 7, 0},
      {"device,redis://127.0.0.1:1", "the store tier has no pages", 0, 0},
      {"device,host:2", "storePages is 5 but the list has no store", 0, 5},
      {"device,redis://u:hunter2@h:1,host:2", nullptr, 0, 0},
  };
  for (const Case &c : cases) {
    CacheConfig config = withDefaults();
    config.hostPages = c.hostPages;
    config.storePages = c.storePages;
    const CacheConfig before = config;
    std::string error;
    const bool ok = applyTiers(c.tiers, config, error);
    if (!c.expected) {
      // The URL is the rest: ",host:2" is part of it, and the store has
      // no pages; the password stays out of the message.
      EXPECT_FALSE(ok) << c.tiers;
      EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
      continue;
    }
    EXPECT_FALSE(ok) << c.tiers;
    EXPECT_NE(error.find(c.expected), std::string::npos)
        << c.tiers << " -> " << error;
    EXPECT_EQ(config.pages, before.pages) << c.tiers;
    EXPECT_EQ(config.hostPages, before.hostPages) << c.tiers;
    EXPECT_EQ(config.storeUrl, before.storeUrl) << c.tiers;
  }
}

} // namespace
