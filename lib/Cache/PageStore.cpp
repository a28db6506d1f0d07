//===- PageStore.cpp - The bytes of one memory tier's pages ---------------===//

#include "indexpool/Cache/PageStore.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

using namespace indexpool::cache;

PageStore::~PageStore() = default;

namespace {

class MemoryStore final : public PageStore {
public:
  MemoryStore(std::uint64_t slots, std::int64_t layers, std::int64_t pageBytes)
      : pageBytes(size_t(pageBytes)),
        arrays(size_t(layers), std::vector<std::int8_t>(
                                   size_t(slots) * size_t(pageBytes), 0)) {}

  bool read(std::uint64_t slot, std::int64_t layer, std::int8_t *bytes,
            std::string &) const override {
    std::memcpy(bytes, &arrays[size_t(layer)][size_t(slot) * pageBytes],
                pageBytes);
    return true;
  }
  bool write(std::uint64_t slot, std::int64_t layer, const std::int8_t *bytes,
             std::string &) override {
    std::memcpy(&arrays[size_t(layer)][size_t(slot) * pageBytes], bytes,
                pageBytes);
    return true;
  }
  std::int8_t *layerData(std::int64_t layer) override {
    return arrays[size_t(layer)].data();
  }

private:
  size_t pageBytes;
  std::vector<std::vector<std::int8_t>> arrays;
};

class FileStore final : public PageStore {
public:
  FileStore(int fd, std::string path, std::int64_t layers,
            std::int64_t pageBytes)
      : fd(fd), path(std::move(path)), layers(std::uint64_t(layers)),
        pageBytes(std::uint64_t(pageBytes)) {}
  ~FileStore() override { ::close(fd); }

  bool read(std::uint64_t slot, std::int64_t layer, std::int8_t *bytes,
            std::string &error) const override {
    size_t done = 0;
    while (done < pageBytes) {
      ssize_t got = ::pread(fd, bytes + done, pageBytes - done,
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
    size_t done = 0;
    while (done < pageBytes) {
      ssize_t put = ::pwrite(fd, bytes + done, pageBytes - done,
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
    return (slot * layers + std::uint64_t(layer)) * pageBytes;
  }
  bool fail(const char *what, int code, std::string &error) const {
    error = std::string("the file tier (") + path + "): " + what + ": " +
            std::strerror(code);
    return false;
  }

  int fd;
  std::string path;
  std::uint64_t layers, pageBytes;
};

} // namespace

std::unique_ptr<PageStore> indexpool::cache::makeMemoryStore(
    std::uint64_t slots, std::int64_t layers, std::int64_t pageBytes) {
  return std::make_unique<MemoryStore>(slots, layers, pageBytes);
}

std::unique_ptr<PageStore> indexpool::cache::makeFileStore(
    const std::string &path, std::uint64_t slots, std::int64_t layers,
    std::int64_t pageBytes, std::string &error) {
  // slots * layers * pageBytes, checked (the bytes must fit an off_t).
  unsigned __int128 size = (unsigned __int128)slots * std::uint64_t(layers) *
                           std::uint64_t(pageBytes);
  if (path.empty() || size == 0 || size > (unsigned __int128)INT64_MAX) {
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
  return std::make_unique<FileStore>(fd, path, layers, pageBytes);
}
