//===- PageAllocator.h - Page ids of one tier, with reference counts ------===//
//
// A tier's fixed budget of pages, handed out as ids 0 .. budget-1. A page
// shared by several sequences (a forked prefix) has one reference per
// sequence and returns to the free list when the last one is released.
// The bytes live elsewhere (one [pages, page_bytes] array per layer, as in
// docs/serving-layout.md); the allocator only says which ids are taken.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_PAGEALLOCATOR_H
#define INDEXPOOL_CACHE_PAGEALLOCATOR_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace indexpool::cache {

/// A page id in the block tables' type (docs/serving-layout.md: i32).
using PageIndex = std::int32_t;

class PageAllocator {
public:
  /// The most pages a tier may have: page ids are i32.
  static constexpr std::uint64_t kMaxPages = std::uint64_t(1) << 31;

  /// `pages` ids, 1 .. kMaxPages; nullopt with `error` set otherwise.
  static std::optional<PageAllocator> create(std::uint64_t pages,
                                             std::string &error);

  /// A free page with one reference, or none when the budget is used.
  std::optional<PageIndex> allocate();
  /// One more reference to a taken page.
  void retain(PageIndex page);
  /// One reference fewer; the page is free again at zero.
  void release(PageIndex page);
  /// The references to `page` (0: free).
  std::uint32_t references(PageIndex page) const { return refs[page]; }

  /// Sets every page's references at once (a restored cache): `counts` has
  /// one entry per page.
  void assign(const std::vector<std::uint32_t> &counts);

  std::uint64_t capacity() const { return refs.size(); }
  std::uint64_t freePages() const { return freeList.size(); }

private:
  explicit PageAllocator(std::uint64_t pages);
  std::vector<std::uint32_t> refs;
  // Taken from the back: the lowest ids first, then the latest freed.
  std::vector<PageIndex> freeList;
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_PAGEALLOCATOR_H
