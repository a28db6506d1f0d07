//===- SequenceTableTest.cpp - Block tables, forks and budgets ------------===//

#include "indexpool/Cache/SequenceTable.h"

#include <gtest/gtest.h>

using namespace indexpool::cache;

namespace {

// P = 4 tokens per entry, E = 2 entries per page: 8 tokens fill a page.
constexpr std::int64_t kPool = 4, kEntries = 2;

PageAllocator allocator(std::uint64_t pages) {
  std::string error;
  auto a = PageAllocator::create(pages, error);
  EXPECT_TRUE(a) << error;
  return *a;
}

/// reserve + commit, expecting success; the copies reserve asked for.
std::vector<PageCopy> append(SequenceTable &table, SequenceId s,
                             std::int64_t tokens) {
  std::vector<PageCopy> copies;
  std::string error;
  EXPECT_TRUE(table.reserve(s, tokens, copies, error)) << error;
  EXPECT_TRUE(table.commit(s, tokens, error)) << error;
  return copies;
}

} // namespace

TEST(PageAllocator, BudgetAndReferences) {
  PageAllocator pages = allocator(2);
  auto a = pages.allocate(), b = pages.allocate();
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);
  EXPECT_FALSE(pages.allocate());
  pages.retain(*a);
  pages.release(*a);
  EXPECT_EQ(pages.freePages(), 0u);
  pages.release(*a);
  EXPECT_EQ(pages.freePages(), 1u);
  EXPECT_EQ(pages.allocate(), a);
  std::string error;
  EXPECT_FALSE(PageAllocator::create(0, error));
  EXPECT_FALSE(PageAllocator::create(PageAllocator::kMaxPages + 1, error));
  EXPECT_NE(error.find("expected 1 to 2^31 pages"), std::string::npos);
}

TEST(SequenceTable, PagesFollowTheGroups) {
  PageAllocator pages = allocator(8);
  SequenceTable table(pages, kPool, kEntries);
  SequenceId s = table.add();
  // 7 tokens: one group (entry 0) and a tail of 3: one page.
  EXPECT_TRUE(append(table, s, 7).empty());
  EXPECT_EQ(table.blockTable(s).size(), 1u);
  // 9 more (16): groups 1..3, entries 1..3: a second page.
  append(table, s, 9);
  EXPECT_EQ(table.length(s), 16);
  EXPECT_EQ(table.blockTable(s).size(), 2u);
  // 3 more (19): group 4 not complete: no new page.
  append(table, s, 3);
  EXPECT_EQ(table.blockTable(s).size(), 2u);
  EXPECT_EQ(pages.freePages(), 6u);
}

TEST(SequenceTable, ForksShareAndCopyOnWrite) {
  PageAllocator pages = allocator(8);
  SequenceTable table(pages, kPool, kEntries);
  SequenceId parent = table.add();
  append(table, parent, 12); // entries 0..2: a full page and half of one
  SequenceId child;
  std::string error;
  ASSERT_TRUE(table.fork(parent, child, error)) << error;
  EXPECT_EQ(table.blockTable(child), table.blockTable(parent));
  EXPECT_EQ(table.length(child), 12);
  const PageIndex full = table.blockTable(parent)[0],
                  half = table.blockTable(parent)[1];
  EXPECT_EQ(pages.references(full), 2u);
  EXPECT_EQ(pages.references(half), 2u);

  // The child completes entry 3, in the shared half page: a private copy.
  std::vector<PageCopy> copies = append(table, child, 4);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0].from, half);
  EXPECT_EQ(table.blockTable(child)[0], full); // still shared
  EXPECT_EQ(table.blockTable(child)[1], copies[0].to);
  EXPECT_EQ(pages.references(half), 1u);
  // The parent now owns the half page alone and writes it in place.
  EXPECT_TRUE(append(table, parent, 4).empty());
  EXPECT_EQ(table.blockTable(parent)[1], half);

  // Freeing the parent keeps the full page for the child.
  ASSERT_TRUE(table.free(parent, error)) << error;
  EXPECT_EQ(pages.references(full), 1u);
  EXPECT_EQ(pages.references(half), 0u);
  EXPECT_EQ(pages.freePages(), 8u - 2u);
}

TEST(SequenceTable, AppendsWithinATailNeedNoCopy) {
  PageAllocator pages = allocator(4);
  SequenceTable table(pages, kPool, kEntries);
  SequenceId parent = table.add();
  append(table, parent, 5);
  SequenceId child;
  std::string error;
  ASSERT_TRUE(table.fork(parent, child, error));
  // 2 tokens: the tail grows to 3, no entry is written.
  EXPECT_TRUE(append(table, child, 2).empty());
  EXPECT_EQ(pages.references(table.blockTable(child)[0]), 2u);
}

TEST(SequenceTable, BudgetErrorsChangeNothing) {
  PageAllocator pages = allocator(2);
  SequenceTable table(pages, kPool, kEntries);
  SequenceId s = table.add();
  append(table, s, 8); // one full page
  std::vector<PageCopy> copies;
  std::string error;
  // 17 more tokens (25): entries up to 5, pages 0..2: 2 new, 1 free.
  EXPECT_FALSE(table.reserve(s, 17, copies, error));
  EXPECT_NE(error.find("needs 2 more pages, 1 of the 2 in the budget are free"),
            std::string::npos)
      << error;
  EXPECT_EQ(table.blockTable(s).size(), 1u);
  EXPECT_EQ(pages.freePages(), 1u);
  EXPECT_FALSE(table.reserve(s, std::int64_t(1) << 62, copies, error));
  EXPECT_NE(error.find("expected 0 to 2^62 tokens"), std::string::npos);
  EXPECT_FALSE(table.reserve(s, -1, copies, error));
  EXPECT_TRUE(table.reserve(s, 8, copies, error)) << error;
  EXPECT_FALSE(table.commit(s, 9, error));
  EXPECT_NE(error.find("committing 9 tokens, 8 reserved"), std::string::npos);
}

TEST(SequenceTable, FreedAndUnknownSequences) {
  PageAllocator pages = allocator(2);
  SequenceTable table(pages, kPool, kEntries);
  SequenceId s = table.add();
  std::string error;
  ASSERT_TRUE(table.free(s, error));
  std::vector<PageCopy> copies;
  EXPECT_FALSE(table.reserve(s, 1, copies, error));
  EXPECT_EQ(error, "sequence 0 was freed");
  EXPECT_FALSE(table.free(s, error));
  SequenceId child;
  EXPECT_FALSE(table.fork(7, child, error));
  EXPECT_EQ(error, "unknown sequence 7");
  EXPECT_FALSE(table.commit(7, 0, error));
  EXPECT_EQ(table.add(), 1u) << "ids are never reused";
}

TEST(SequenceTable, ManyForksAndFreesReturnEveryPage) {
  PageAllocator pages = allocator(64);
  {
    SequenceTable table(pages, kPool, kEntries);
    SequenceId root = table.add();
    append(table, root, 20);
    std::vector<SequenceId> live{root};
    std::string error;
    for (int i = 0; i < 40; ++i) {
      SequenceId child;
      ASSERT_TRUE(table.fork(live[i % live.size()], child, error)) << error;
      append(table, child, 1 + i % 9);
      live.push_back(child);
      if (i % 3 == 2) {
        ASSERT_TRUE(table.free(live.front(), error)) << error;
        live.erase(live.begin());
      }
      // Every page is referenced once per block table listing it.
      std::vector<std::uint32_t> listed(64, 0);
      for (SequenceId s : live)
        for (PageIndex p : table.blockTable(s))
          ++listed[p];
      for (PageIndex p = 0; p < 64; ++p)
        ASSERT_EQ(pages.references(p), listed[p]) << "page " << p;
    }
  }
  EXPECT_EQ(pages.freePages(), 64u) << "the table's destructor frees";
}
