//===- PageStore.h - The bytes of one memory tier's pages -----------------===//
//
// A tier keeps its pages in slots: slot s holds one page's bytes in every
// stored layer (CacheConfig::storedLayers: the pooled layers, then the
// token tier's, each with its own page bytes). Host memory keeps one
// [slots, page bytes] array per layer (the layout the paged kernels read,
// so the device tier on the CPU is one of these); a file keeps slot s's
// layers together at s * (the sum of the layers' page bytes), reserved in
// full when the tier is made, so a write never meets a full disk.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_PAGESTORE_H
#define INDEXPOOL_CACHE_PAGESTORE_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace indexpool::cache {

class SharedPages;

class PageStore {
public:
  virtual ~PageStore();
  /// Layer `layer`'s bytes of slot `slot` into / from `bytes` (that layer's
  /// page bytes).
  virtual bool read(std::uint64_t slot, std::int64_t layer, std::int8_t *bytes,
                    std::string &error) const = 0;
  virtual bool write(std::uint64_t slot, std::int64_t layer,
                     const std::int8_t *bytes, std::string &error) = 0;
  /// Every stored layer of slot `slot` at once: layers[l] holds layer l's
  /// page bytes (one pointer per layer). A remote store sends them in one
  /// round trip; the default writes them one by one.
  virtual bool writeSlot(std::uint64_t slot,
                         const std::vector<const std::int8_t *> &layers,
                         std::string &error);
  /// True when `slots` more slots can be written now; else false with
  /// `error` (a remote store in an outage, its host memory bound reached).
  /// Asked before a call moves anything, so a refusal changes nothing.
  virtual bool canWrite(std::uint64_t slots, std::string &error) {
    (void)slots, (void)error;
    return true;
  }
  /// Slot `slot`'s page is not needed any more (its sequences were freed);
  /// a shared store gives back its references. Its bytes are undefined
  /// until it is written again.
  virtual void discard(std::uint64_t slot) { (void)slot; }
  /// Layer `layer`'s [slots, page bytes] array, or null (a file).
  virtual std::int8_t *layerData(std::int64_t layer) = 0;
  /// The same store's pages by content, for sharing between processes
  /// (SharedPages.h), or null.
  virtual SharedPages *shared() { return nullptr; }
};

/// `slots` pages in host memory, zeroed: one layer per entry of
/// `layerBytes`, of that many bytes a page (each > 0).
std::unique_ptr<PageStore>
makeMemoryStore(std::uint64_t slots,
                const std::vector<std::int64_t> &layerBytes);

/// The same in a new file at `path` (refused if it exists), with all its
/// bytes reserved now (posix_fallocate) and its name removed at once; null
/// with `error` set when it cannot be made (a full disk among others).
std::unique_ptr<PageStore>
makeFileStore(const std::string &path, std::uint64_t slots,
              const std::vector<std::int64_t> &layerBytes, std::string &error);

/// The sum of `layerBytes` (one page in every layer), or -1 when a size is
/// not positive or the sum passes 2^62.
std::int64_t pageBytesInAllLayers(const std::vector<std::int64_t> &layerBytes);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_PAGESTORE_H
