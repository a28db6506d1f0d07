//===- PageAllocator.cpp - Page ids of one tier, with reference counts ----===//

#include "indexpool/Cache/PageAllocator.h"

#include <cassert>

using namespace indexpool::cache;

std::optional<PageAllocator> PageAllocator::create(std::uint64_t pages,
                                                   std::string &error) {
  if (pages == 0 || pages > kMaxPages) {
    error = "a page budget of " + std::to_string(pages) +
            ": expected 1 to 2^31 pages (page ids are i32)";
    return std::nullopt;
  }
  return PageAllocator(pages);
}

PageAllocator::PageAllocator(std::uint64_t pages) : refs(pages, 0) {
  freeList.reserve(pages);
  for (std::uint64_t p = pages; p > 0; --p)
    freeList.push_back(static_cast<PageIndex>(p - 1));
}

std::optional<PageIndex> PageAllocator::allocate() {
  if (freeList.empty())
    return std::nullopt;
  PageIndex page = freeList.back();
  freeList.pop_back();
  refs[page] = 1;
  return page;
}

void PageAllocator::retain(PageIndex page) {
  assert(refs[page] > 0 && "retaining a free page");
  ++refs[page];
}

void PageAllocator::release(PageIndex page) {
  assert(refs[page] > 0 && "releasing a free page");
  if (--refs[page] == 0)
    freeList.push_back(page);
}

void PageAllocator::assign(const std::vector<std::uint32_t> &counts) {
  assert(counts.size() == refs.size());
  refs = counts;
  freeList.clear();
  for (std::uint64_t p = refs.size(); p > 0; --p)
    if (refs[p - 1] == 0)
      freeList.push_back(static_cast<PageIndex>(p - 1));
}
