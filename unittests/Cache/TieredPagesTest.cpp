//===- TieredPagesTest.cpp - Residency, moves and counters ----------------===//

#include "indexpool/Cache/Simulate.h"
#include "indexpool/Cache/TieredPages.h"

#include <gtest/gtest.h>

#include <unordered_set>

using namespace indexpool::cache;

static std::unique_ptr<TieredPages> make(std::vector<TierConfig> tiers,
                                         const std::string &policy = "lru") {
  std::string error;
  auto pages = TieredPages::create(std::move(tiers), policy, error);
  EXPECT_TRUE(pages) << error;
  return pages;
}

TEST(TieredPages, OneTierHitsMissesAndDrops) {
  auto pages = make({{"device", 2}});
  const std::size_t nowhere = TieredPages::kNowhere;
  EXPECT_EQ(pages->reference(1), nowhere);
  EXPECT_EQ(pages->reference(2), nowhere);
  EXPECT_EQ(pages->reference(1), 0u);
  EXPECT_EQ(pages->reference(3), nowhere); // drops 2, the least recent
  EXPECT_EQ(pages->tierOf(2), nowhere);
  EXPECT_EQ(pages->reference(2), nowhere);
  EXPECT_EQ(pages->references(), 5u);
  EXPECT_EQ(pages->counters(0).hits, 1u);
  EXPECT_EQ(pages->misses(), 4u);
  EXPECT_EQ(pages->dropped(), 2u); // 2, then 1
  EXPECT_EQ(pages->residentPages(0), 2u);
}

TEST(TieredPages, VictimsMoveOneTierDownAndComeBack) {
  auto pages = make({{"device", 1}, {"host", 2}});
  pages->reference(1);
  pages->reference(2); // 1 -> host
  EXPECT_EQ(pages->tierOf(1), 1u);
  EXPECT_EQ(pages->reference(1), 1u); // a host hit; 2 -> host
  EXPECT_EQ(pages->tierOf(2), 1u);
  pages->reference(3); // 1 -> host: host holds 2, 1
  pages->reference(4); // 3 -> host: host full, drops 2 (least recent there)
  EXPECT_EQ(pages->tierOf(2), TieredPages::kNowhere);
  EXPECT_EQ(pages->tierOf(1), 1u);
  EXPECT_EQ(pages->tierOf(3), 1u);
  EXPECT_EQ(pages->tierOf(4), 0u);
  EXPECT_EQ(pages->counters(1).hits, 1u);
  EXPECT_EQ(pages->counters(0).pagesDown, 4u);
  EXPECT_EQ(pages->counters(1).pagesIn, 4u);
  EXPECT_EQ(pages->counters(1).pagesDown, 1u);
  EXPECT_EQ(pages->dropped(), 1u);
  pages->release(3);
  EXPECT_EQ(pages->tierOf(3), TieredPages::kNowhere);
  EXPECT_EQ(pages->residentPages(1), 1u);
}

TEST(TieredPages, BudgetsHoldOnAGeneratedTrace) {
  Trace trace;
  std::string error;
  ASSERT_TRUE(generateTrace("tenants", 7, trace, error)) << error;
  trace.references.resize(50000);
  for (const char *policy : {"lru", "lru-k", "lru-k:3:64"}) {
    auto pages = make({{"device", 100}, {"host", 200}}, policy);
    std::unordered_set<PageId> seen;
    for (PageId page : trace.references) {
      pages->reference(page);
      seen.insert(page);
      ASSERT_EQ(pages->tierOf(page), 0u);
      ASSERT_LE(pages->residentPages(0), 100u);
      ASSERT_LE(pages->residentPages(1), 200u);
    }
    // Every page seen is resident somewhere or was dropped by the last tier.
    std::uint64_t resident = 0;
    for (PageId page : seen)
      resident += pages->tierOf(page) != TieredPages::kNowhere;
    EXPECT_EQ(resident, pages->residentPages(0) + pages->residentPages(1));
    EXPECT_EQ(pages->counters(0).hits + pages->counters(1).hits +
                  pages->misses(),
              trace.references.size());
    // Each page misses once at first; again only after the last tier
    // dropped it; a page seen but not resident was dropped.
    EXPECT_GE(pages->misses(), seen.size());
    EXPECT_LE(pages->misses() - seen.size(), pages->dropped());
    EXPECT_LE(seen.size() - resident, pages->dropped());
    EXPECT_GT(pages->dropped(), 0u) << "the budgets should be too small";
  }
}

TEST(TieredPages, BadConfigurations) {
  std::string error;
  EXPECT_EQ(TieredPages::create({}, "lru", error), nullptr);
  EXPECT_NE(error.find("at least one tier"), std::string::npos);
  EXPECT_EQ(TieredPages::create({{"device", 0}}, "lru", error), nullptr);
  EXPECT_NE(error.find("'device' has a budget of 0 pages"), std::string::npos);
  EXPECT_EQ(TieredPages::create({{"device", 4}}, "clock", error), nullptr);
  EXPECT_NE(error.find("unknown eviction policy 'clock'"), std::string::npos);
}

TEST(Simulate, LruKKeepsTheHotSetThroughScans) {
  // The scan trace: 16 hot sequences of 32 pages (ids 0..15) decode in
  // turn; every 256 steps a one-off scan of 2048 pages. A device budget of
  // 768 pages holds the hot set (512) but not a scan. LRU-2 never evicts a
  // hot page for a scan page (seen once): the hot references miss only
  // the first time, 512 misses. LRU loses the whole hot set to every scan:
  // after each of the 99 scans followed by a full round, 512 misses again.
  Trace trace;
  std::string error;
  ASSERT_TRUE(generateTrace("scan", 1, trace, error)) << error;
  std::uint64_t hot = 0;
  for (PageId page : trace.references)
    hot += (page >> 24) < 16;
  auto lru = simulate(trace, {{"device", 768}}, "lru", error);
  auto lruK = simulate(trace, {{"device", 768}}, "lru-k", error);
  ASSERT_TRUE(lru && lruK) << error;
  EXPECT_EQ(lruK->counters[0].hits, hot - 512);
  EXPECT_LE(lru->counters[0].hits, hot - 512 - 99 * 512);
}

TEST(Simulate, StudyTableAndJson) {
  Trace trace;
  trace.name = "tiny";
  trace.references = {1, 2, 1, 3, 1, 2, 4, 1};
  Study study;
  study.budgets = {0.5, 1.0};
  std::string error;
  auto results = runStudy(trace, study, error);
  ASSERT_TRUE(results) << error;
  ASSERT_EQ(results->size(), 4u);
  // 4 distinct pages: budgets of 2 and 4 pages. At 4 every page stays after
  // its first reference: 4 misses, 4 hits.
  EXPECT_EQ((*results)[2].tiers[0].pages, 4u);
  EXPECT_EQ((*results)[2].counters[0].hits, 4u);
  EXPECT_EQ((*results)[3].counters[0].hits, 4u);
  std::string table = formatHitRates(*results);
  EXPECT_NE(table.find("| tiny | 8 | 4 | 50.0% | 50.0% |"), std::string::npos)
      << table;
  EXPECT_NE(resultsJson(*results).find("\"device_pages\": 2"), std::string::npos);
  study.budgets = {1.5};
  EXPECT_FALSE(runStudy(trace, study, error));
  EXPECT_NE(error.find("expected a fraction"), std::string::npos);
}
