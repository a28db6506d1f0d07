//===- PageStore.cpp - The bytes of one memory tier's pages ---------------===//

#include "indexpool/Cache/PageStore.h"
#include "indexpool/Cache/SharedPages.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

using namespace indexpool::cache;

PageStore::~PageStore() = default;
SharedPages::~SharedPages() = default;

bool PageStore::writeSlot(std::uint64_t slot,
                          const std::vector<const std::int8_t *> &layers,
                          std::string &error) {
  for (size_t l = 0; l < layers.size(); ++l)
    if (!write(slot, std::int64_t(l), layers[l], error))
      return false;
  return true;
}

bool SharedPages::getPages(const std::vector<PageRequest> &requests,
                           size_t &failed, std::string &error) const {
  for (failed = 0; failed < requests.size(); ++failed) {
    const PageRequest &r = requests[failed];
    if (!getPage(r.digest, r.layer, r.bytes, r.n, error))
      return false;
  }
  return true;
}

namespace {

class MemoryStore final : public PageStore {
public:
  MemoryStore(std::uint64_t slots,
              const std::vector<std::int64_t> &layerBytes) {
    for (std::int64_t bytes : layerBytes) {
      pageBytes.push_back(size_t(bytes));
      arrays.emplace_back(size_t(slots) * size_t(bytes), 0);
    }
  }

  bool read(std::uint64_t slot, std::int64_t layer, std::int8_t *bytes,
            std::string &) const override {
    const size_t size = pageBytes[size_t(layer)];
    std::memcpy(bytes, &arrays[size_t(layer)][size_t(slot) * size], size);
    return true;
  }
  bool write(std::uint64_t slot, std::int64_t layer, const std::int8_t *bytes,
             std::string &) override {
    const size_t size = pageBytes[size_t(layer)];
    std::memcpy(&arrays[size_t(layer)][size_t(slot) * size], bytes, size);
    return true;
  }
  std::int8_t *layerData(std::int64_t layer) override {
    return arrays[size_t(layer)].data();
  }

private:
  std::vector<size_t> pageBytes;
  std::vector<std::vector<std::int8_t>> arrays;
};

class FileStore final : public PageStore {
public:
  FileStore(int fd, std::string path,
            const std::vector<std::int64_t> &layerBytes)
      : fd(fd), path(std::move(path)) {
    for (std::int64_t bytes : layerBytes) {
      starts.push_back(slotBytes);
      sizes.push_back(std::uint64_t(bytes));
      slotBytes += std::uint64_t(bytes);
    }
  }
  ~FileStore() override { ::close(fd); }

  bool read(std::uint64_t slot, std::int64_t layer, std::int8_t *bytes,
            std::string &error) const override {
    const size_t size = size_t(sizes[size_t(layer)]);
    size_t done = 0;
    while (done < size) {
      ssize_t got = ::pread(fd, bytes + done, size - done,
                            off_t(offset(slot, layer) + done));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return fail("reading", got < 0 ? errno : EIO, error);
      done += size_t(got);
    }
    return true;
  }
  bool write(std::uint64_t slot, std::int64_t layer, const std::int8_t *bytes,
             std::string &error) override {
    const size_t size = size_t(sizes[size_t(layer)]);
    size_t done = 0;
    while (done < size) {
      ssize_t put = ::pwrite(fd, bytes + done, size - done,
                             off_t(offset(slot, layer) + done));
      if (put < 0 && errno == EINTR)
        continue;
      if (put <= 0)
        return fail("writing", put < 0 ? errno : EIO, error);
      done += size_t(put);
    }
    return true;
  }
  std::int8_t *layerData(std::int64_t) override { return nullptr; }

private:
  std::uint64_t offset(std::uint64_t slot, std::int64_t layer) const {
    return slot * slotBytes + starts[size_t(layer)];
  }
  bool fail(const char *what, int code, std::string &error) const {
    error = std::string("the file tier (") + path + "): " + what + ": " +
            std::strerror(code);
    return false;
  }

  int fd;
  std::string path;
  // Per layer: its bytes' start within a slot, and their size.
  std::vector<std::uint64_t> starts, sizes;
  std::uint64_t slotBytes = 0;
};

} // namespace

std::int64_t indexpool::cache::pageBytesInAllLayers(
    const std::vector<std::int64_t> &layerBytes) {
  std::int64_t sum = 0;
  for (std::int64_t bytes : layerBytes) {
    if (bytes <= 0 || bytes > (std::int64_t(1) << 62) - sum)
      return -1;
    sum += bytes;
  }
  return sum;
}

std::unique_ptr<PageStore> indexpool::cache::makeMemoryStore(
    std::uint64_t slots, const std::vector<std::int64_t> &layerBytes) {
  return std::make_unique<MemoryStore>(slots, layerBytes);
}

std::unique_ptr<PageStore> indexpool::cache::makeFileStore(
    const std::string &path, std::uint64_t slots,
    const std::vector<std::int64_t> &layerBytes, std::string &error) {
  // slots * (every layer's page bytes), checked (the bytes must fit an
  // off_t).
  const std::int64_t slotBytes = pageBytesInAllLayers(layerBytes);
  unsigned __int128 size =
      (unsigned __int128)slots * std::uint64_t(slotBytes < 0 ? 0 : slotBytes);
  if (path.empty() || slotBytes < 0 || size == 0 ||
      size > (unsigned __int128)INT64_MAX) {
    error = path.empty() ? "the file tier needs a file path"
                         : "the file tier (" + path + "): a bad size";
    return nullptr;
  }
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    error = "the file tier (" + path + "): " + std::strerror(errno);
    return nullptr;
  }
  // Reserve every byte now: a tier that might meet a full disk later could
  // lose the page it was moving.
  int code = ::posix_fallocate(fd, 0, off_t(size));
  ::unlink(path.c_str());
  if (code != 0) {
    ::close(fd);
    error = "the file tier (" + path + "): reserving " +
            std::to_string((unsigned long long)size) +
            " bytes: " + std::strerror(code);
    return nullptr;
  }
  return std::make_unique<FileStore>(fd, path, layerBytes);
}
