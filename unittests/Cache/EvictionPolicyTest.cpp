//===- EvictionPolicyTest.cpp - LRU and LRU-K on hand-worked histories ----===//

#include "indexpool/Cache/EvictionPolicy.h"

#include <gtest/gtest.h>

using namespace indexpool::cache;

TEST(Lru, EvictsTheLeastRecentlyUsed) {
  auto lru = makeLru();
  EXPECT_FALSE(lru->victim(0).has_value());
  lru->admit(1, 0);
  lru->admit(2, 1);
  lru->admit(3, 2);
  lru->reference(1, 3);
  EXPECT_EQ(lru->victim(4), 2u);
  lru->remove(2);
  EXPECT_EQ(lru->victim(4), 3u);
  EXPECT_EQ(lru->size(), 2u);
}

TEST(LruK, PagesSeenFewerThanKTimesGoFirst) {
  auto policy = makeLruK(2, 0);
  policy->admit(1, 0);
  policy->admit(2, 1);
  policy->reference(1, 2);
  EXPECT_EQ(policy->victim(3), 2u);
}

TEST(LruK, ResistsAScanThatFloodsLru) {
  auto lruK = makeLruK(2, 0), lru = makeLru();
  for (auto *p : {lruK.get(), lru.get()}) {
    p->admit(100, 0);
    p->reference(100, 1); // the hot page, twice
    for (PageId s = 1; s <= 3; ++s)
      p->admit(s, 1 + s); // a scan, once each
  }
  EXPECT_EQ(lru->victim(10), 100u);
  // Every scan page has one reference: the oldest of them goes.
  EXPECT_EQ(lruK->victim(10), 1u);
}

TEST(LruK, EvictsTheOldestSecondToLastReference) {
  // P at 0 and 10, Q at 5 and 6: LRU evicts Q (older last reference), LRU-2
  // evicts P (older second-to-last reference).
  auto lruK = makeLruK(2, 0), lru = makeLru();
  for (auto *p : {lruK.get(), lru.get()}) {
    p->admit(1, 0);
    p->admit(2, 5);
    p->reference(2, 6);
    p->reference(1, 10);
  }
  EXPECT_EQ(lru->victim(20), 2u);
  EXPECT_EQ(lruK->victim(20), 1u);
}

TEST(LruK, CorrelatedReferencesCountOnce) {
  // P at 5 and 6, R at 0 and 10. Without a correlated period R's second-to-
  // last reference (0) is the oldest; with a period of 5, P's two references
  // are one burst, so P has been referenced once and goes first.
  for (std::uint64_t period : {0u, 5u}) {
    auto policy = makeLruK(2, period);
    policy->admit(1, 5);
    policy->reference(1, 6);
    policy->admit(2, 0);
    policy->reference(2, 10);
    EXPECT_EQ(policy->victim(20), period ? 1u : 2u) << "period " << period;
  }
}

TEST(LruK, SkipsPagesInsideTheirCorrelatedPeriod) {
  // P at 0 and 8; Q at 18 only. At 20 Q is still inside its period of 5:
  // P goes although Q has fewer references. Without a period, Q goes.
  for (std::uint64_t period : {0u, 5u}) {
    auto policy = makeLruK(2, period);
    policy->admit(1, 0);
    policy->reference(1, 8);
    policy->admit(2, 18);
    EXPECT_EQ(policy->victim(20), period ? 1u : 2u) << "period " << period;
  }
}

TEST(LruK, EveryPageInsideItsPeriodStillGivesAVictim) {
  auto policy = makeLruK(2, 100);
  policy->admit(1, 0);
  policy->admit(2, 1);
  EXPECT_EQ(policy->victim(2), 1u);
}

TEST(LruK, APageThatComesBackResumesItsHistory) {
  // P admitted at 0, moved out, back at 5: two references. R admitted once
  // at 6 goes first; had P's history been lost, P (older) would.
  auto policy = makeLruK(2, 0);
  policy->admit(1, 0);
  policy->remove(1);
  policy->admit(1, 5);
  policy->admit(2, 6);
  EXPECT_EQ(policy->victim(7), 2u);
  EXPECT_EQ(policy->size(), 2u);
}

TEST(LruK, KOfOneIsLru) {
  auto lru1 = makeLruK(1, 0), lru = makeLru();
  const PageId refs[] = {1, 2, 3, 1, 4, 2, 5, 1, 3};
  std::uint64_t now = 0;
  for (PageId page : refs) {
    for (auto *p : {lru1.get(), lru.get()}) {
      p->reference(page, now);
      if (p->size() > 3)
        p->remove(*p->victim(now));
    }
    ++now;
    EXPECT_EQ(lru1->victim(now), lru->victim(now)) << "after reference " << now;
  }
}

TEST(ParsePolicy, NamesAndErrors) {
  std::string error;
  EXPECT_EQ(parsePolicy("lru", error)->name(), "lru");
  EXPECT_EQ(parsePolicy("lru-k", error)->name(), "lru-k:2:0");
  EXPECT_EQ(parsePolicy("lru-k:3", error)->name(), "lru-k:3:0");
  EXPECT_EQ(parsePolicy("lru-k:2:64", error)->name(), "lru-k:2:64");
  for (const char *bad : {"", "lfu", "lru-k:", "lru-k:0", "lru-k:17", "lru-k:2:",
                          "lru-k:2:x", "lru-k:-1", "lru-k:99999999999999999999"}) {
    error.clear();
    EXPECT_EQ(parsePolicy(bad, error), nullptr) << bad;
    EXPECT_NE(error.find("unknown eviction policy"), std::string::npos) << bad;
  }
}

TEST(EvictionPolicy, PinnedPagesAreNeverVictims) {
  // Pages 1, 2, 3 in that order; 2 is referenced twice (LRU-2 keeps it),
  // so without pins LRU picks 1 and LRU-2 picks 1 too (seen once, oldest).
  std::unique_ptr<EvictionPolicy> policies[] = {makeLru(), makeLruK(2, 0),
                                                makeLruK(2, 100)};
  for (auto &policy : policies) {
    policy->admit(1, 0);
    policy->admit(2, 1);
    policy->reference(2, 2);
    policy->admit(3, 3);
    EXPECT_EQ(policy->victim(200), 1u) << policy->name();
    auto pinOne = [](PageId p) { return p == 1; };
    EXPECT_NE(policy->victim(200, pinOne), 1u) << policy->name();
    EXPECT_TRUE(policy->victim(200, pinOne).has_value()) << policy->name();
    auto pinAll = [](PageId) { return true; };
    EXPECT_FALSE(policy->victim(200, pinAll).has_value()) << policy->name();
  }
}
