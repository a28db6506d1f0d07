//===- BufferCacheTest.cpp - reuse of large buffers -----------------------===//
//
// Blocks of 48 MiB: above glibc's largest mmap threshold, so without the
// cache a freed block goes back to the system and a new one arrives zeroed.
// A block that comes back holding what was written into it was cached.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/BufferCache.h"

#include "gtest/gtest.h"

#include <cstring>

namespace {

constexpr size_t kSize = size_t(48) << 20;

char middle(void *block) { return static_cast<char *>(block)[kSize / 2]; }

TEST(BufferCacheTest, AFreedBlockComesBackWithItsContentForTheSameSize) {
  void *first = indexpool_cached_malloc(kSize);
  ASSERT_NE(first, nullptr);
  std::memset(first, 7, kSize);
  indexpool_cached_free(first);
  void *second = indexpool_cached_malloc(kSize);
  EXPECT_EQ(second, first);
  EXPECT_EQ(middle(second), 7);
  // Another size never gets a cached block of this one.
  void *other = indexpool_cached_malloc(kSize + 4096);
  EXPECT_NE(other, second);
  indexpool_cached_free(other);
  indexpool_cached_free(second);
  indexpool::runtime::releaseCachedBuffers();
}

TEST(BufferCacheTest, KeepsAtMostFourBlocksPerSize) {
  void *blocks[6];
  for (int i = 0; i < 6; ++i) {
    blocks[i] = indexpool_cached_malloc(kSize);
    ASSERT_NE(blocks[i], nullptr);
    std::memset(blocks[i], i + 1, kSize);
  }
  for (void *b : blocks)
    indexpool_cached_free(b);
  // The first four freed were kept (the last two went back to the system):
  // they come back with their content, the last kept first, then fresh ones.
  void *again[6];
  int kept = 0;
  for (void *&b : again) {
    b = indexpool_cached_malloc(kSize);
    kept += middle(b) != 0;
  }
  EXPECT_EQ(kept, 4);
  EXPECT_EQ(middle(again[0]), 4);
  for (void *b : again)
    indexpool_cached_free(b);
  indexpool::runtime::releaseCachedBuffers();
}

TEST(BufferCacheTest, SmallBlocksAndNullPassThrough) {
  void *small = indexpool_cached_malloc(16);
  ASSERT_NE(small, nullptr);
  indexpool_cached_free(small);
  indexpool_cached_free(nullptr);
}

} // namespace
