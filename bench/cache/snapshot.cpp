//===- snapshot.cpp - Snapshot time and size per GB of cache --------------===//
//
//   indexpool-bench-snapshot [MIB]   (default 512 MiB of pages)
//
// A cache of MIB of pages (two layers, D = 128, E = 64: 8448-byte pages,
// every page listed by one of 64 sequences, random bytes) is written as a
// snapshot and restored; beside them, in the same run, the anchor: the same
// bytes written to a plain file with one fsync, and read back. Prints the
// times, the snapshot's size against the page bytes, and the ratios.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/Snapshot.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

using namespace indexpool::cache;

namespace {

/// Kernels a snapshot never calls.
class NoKernels final : public CacheKernels {
  bool append(const AppendCall &, std::string &e) override {
    e = "no kernels in this benchmark";
    return false;
  }
  bool select(const SelectCall &, std::string &e) override {
    e = "no kernels in this benchmark";
    return false;
  }
};

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

int fail(const std::string &why) {
  std::fprintf(stderr, "indexpool-bench-snapshot: error: %s\n", why.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  const long mib = argc > 1 ? std::atol(argv[1]) : 512;
  if (mib < 1 || mib > 65536)
    return fail("expected a size in MiB from 1 to 65536");
  CacheConfig c;
  c.layers = 2;
  c.dim = 128;
  c.poolSize = 4;
  c.pageEntries = 64;
  c.heads = 64;
  c.k = 512;
  const std::uint64_t pageBytes = std::uint64_t(c.pageBytes());
  c.pages = std::max<std::uint64_t>(
      64, (std::uint64_t(mib) << 20) / (pageBytes * std::uint64_t(c.layers)));

  // The state: 64 sequences, each listing pages/64 full pages.
  PagedCache::State state;
  const std::uint64_t perSequence = c.pages / 64;
  for (SequenceId id = 0; id < 64; ++id) {
    SequenceTable::Restored r{id, std::int64_t(perSequence) * c.pageEntries *
                                      c.poolSize, {}};
    for (std::uint64_t p = 0; p < perSequence; ++p)
      r.blockTable.push_back(PageIndex(id * perSequence + p));
    state.sequences.push_back(std::move(r));
  }
  state.nextId = 64;
  std::mt19937_64 rng(1);
  state.pages.resize(size_t(c.layers));
  state.tails.resize(size_t(c.layers));
  for (auto &layer : state.pages) {
    layer.resize(size_t(c.pages * pageBytes));
    for (size_t i = 0; i + 8 <= layer.size(); i += 8) {
      std::uint64_t v = rng();
      std::memcpy(&layer[i], &v, 8);
    }
  }
  const double pageData = double(64 * perSequence * pageBytes * c.layers);
  std::string error;
  auto cache = PagedCache::restore(c, std::make_unique<NoKernels>(),
                                   std::move(state), error);
  if (!cache)
    return fail(error);

  const std::string dir = argc > 2 ? argv[2] : "/tmp";
  const std::string path = dir + "/indexpool-bench-snapshot.bin";
  const std::string plain = dir + "/indexpool-bench-plain.bin";

  // Anchor: the page bytes to a plain file, one fsync, then read back.
  std::vector<std::vector<std::int8_t>> layers;
  for (std::int64_t l = 0; l < c.layers; ++l)
    layers.push_back(cache->logicalPages(l));
  auto t0 = std::chrono::steady_clock::now();
  int fd = ::open(plain.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  for (std::int64_t l = 0; fd >= 0 && l < c.layers; ++l) {
    const auto &bytes = layers[size_t(l)];
    size_t used = size_t(64 * perSequence * pageBytes), done = 0;
    while (done < used) {
      ssize_t n = ::write(fd, bytes.data() + done, used - done);
      if (n <= 0)
        return fail("writing " + plain);
      done += size_t(n);
    }
  }
  if (fd < 0 || ::fsync(fd) != 0 || ::close(fd) != 0)
    return fail("writing " + plain);
  const double plainWrite = seconds(t0);
  t0 = std::chrono::steady_clock::now();
  {
    std::vector<char> back(static_cast<size_t>(pageData));
    int in = ::open(plain.c_str(), O_RDONLY);
    size_t done = 0;
    while (in >= 0 && done < back.size()) {
      ssize_t n = ::read(in, back.data() + done, back.size() - done);
      if (n <= 0)
        break;
      done += size_t(n);
    }
    if (in >= 0)
      ::close(in);
  }
  const double plainRead = seconds(t0);

  t0 = std::chrono::steady_clock::now();
  if (!writeSnapshot(*cache, path, 1, error))
    return fail(error);
  const double write = seconds(t0);
  struct stat st;
  ::stat(path.c_str(), &st);
  std::uint64_t generation = 0;
  t0 = std::chrono::steady_clock::now();
  auto restored =
      restoreSnapshot(path, c, std::make_unique<NoKernels>(), generation, error);
  if (!restored)
    return fail(error);
  const double restore = seconds(t0);
  ::unlink(path.c_str());
  ::unlink(plain.c_str());

  const double gib = pageData / double(1u << 30);
  std::printf("cache: %.3f GiB of pages (%llu pages of %llu bytes, %lld layers)\n",
              gib, (unsigned long long)(64 * perSequence),
              (unsigned long long)pageBytes, (long long)c.layers);
  std::printf("snapshot: %.0f bytes, %.5f x the page bytes\n", double(st.st_size),
              double(st.st_size) / pageData);
  std::printf("write: %.3f s (%.2f s per GiB); plain write + fsync %.3f s: "
              "ratio %.2f\n",
              write, write / gib, plainWrite, write / plainWrite);
  std::printf("restore: %.3f s (%.2f s per GiB); plain read %.3f s: ratio %.2f\n",
              restore, restore / gib, plainRead, restore / plainRead);
  return 0;
}
