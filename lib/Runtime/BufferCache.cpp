//===- BufferCache.cpp - reuse of large buffers across calls --------------===//

#include "indexpool/Runtime/BufferCache.h"

#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace {

// Small blocks gain nothing from caching; a few blocks per size cover the
// results of one call being freed while the next one allocates.
constexpr size_t kMinCachedBytes = 1 << 16;
constexpr size_t kMaxBlocksPerSize = 4;

struct Cache {
  std::mutex mutex;
  std::unordered_map<void *, size_t> sizes; // every live or cached block
  std::unordered_map<size_t, std::vector<void *>> free;
};

Cache &cache() {
  static Cache *instance = new Cache; // never destroyed: used until exit
  return *instance;
}

} // namespace

extern "C" void *indexpool_cached_malloc(size_t size) {
  if (size < kMinCachedBytes)
    return std::malloc(size);
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.free.find(size);
    if (it != c.free.end() && !it->second.empty()) {
      void *block = it->second.back();
      it->second.pop_back();
      return block;
    }
  }
  void *block = std::malloc(size);
  if (block) {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.sizes[block] = size;
  }
  return block;
}

extern "C" void indexpool_cached_free(void *pointer) {
  if (!pointer)
    return;
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.sizes.find(pointer);
    if (it != c.sizes.end()) {
      std::vector<void *> &blocks = c.free[it->second];
      if (blocks.size() < kMaxBlocksPerSize) {
        blocks.push_back(pointer);
        return;
      }
      c.sizes.erase(it);
    }
  }
  std::free(pointer);
}

void indexpool::runtime::releaseCachedBuffers() {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto &[size, blocks] : c.free)
    for (void *block : blocks) {
      c.sizes.erase(block);
      std::free(block);
    }
  c.free.clear();
}
