//===- SnapshotTest.cpp - Snapshots: round trips, bad files, kill -9 ------===//

#include "CrashWorkload.h"

#include "indexpool/Cache/Snapshot.h"
#include "indexpool/CacheCpu/CpuCacheKernels.h"

#include <gtest/gtest.h>

#include <set>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace indexpool::cache;
using crashtest::crashConfig;
using crashtest::crashStep;

namespace {

/// The CPU kernels, compiled once for every cache of these tests.
class SharedKernels final : public CacheKernels {
public:
  static std::unique_ptr<CacheKernels> make() {
    // Never destroyed: compiled code must not be torn down during static
    // destruction, after the compiler's own globals (it crashes there).
    static CacheKernels *shared = [] {
      std::string error;
      std::unique_ptr<CacheKernels> k =
          makeCpuCacheKernels(crashConfig(), 1, error);
      EXPECT_TRUE(k) << error;
      return k.release();
    }();
    auto kernels = std::make_unique<SharedKernels>();
    kernels->inner = shared;
    return kernels;
  }
  bool append(const AppendCall &c, std::string &e) override {
    return inner->append(c, e);
  }
  bool select(const SelectCall &c, std::string &e) override {
    return inner->select(c, e);
  }
  CacheKernels *inner = nullptr;
};

std::unique_ptr<PagedCache> replay(std::uint64_t seed, std::uint64_t steps) {
  std::string error;
  auto cache = PagedCache::create(crashConfig(), SharedKernels::make(), error);
  EXPECT_TRUE(cache) << error;
  for (std::uint64_t s = 0; cache && s < steps; ++s)
    EXPECT_TRUE(crashStep(*cache, seed, s, error)) << error;
  return cache;
}

/// Sequences, tables, tails, listed pages' bytes and references all equal.
void expectSameState(const PagedCache &a, const PagedCache &b) {
  const SequenceTable &ta = a.sequences(), &tb = b.sequences();
  ASSERT_EQ(ta.liveIds(), tb.liveIds());
  EXPECT_EQ(ta.nextSequenceId(), tb.nextSequenceId());
  const CacheConfig &c = a.config();
  const size_t pageBytes = size_t(c.pageBytes());
  for (SequenceId id : ta.liveIds()) {
    EXPECT_EQ(ta.length(id), tb.length(id)) << "sequence " << id;
    ASSERT_EQ(ta.blockTable(id), tb.blockTable(id)) << "sequence " << id;
    for (std::int64_t l = 0; l < c.layers; ++l) {
      const auto *x = a.tail(id, l), *y = b.tail(id, l);
      ASSERT_EQ(x == nullptr, y == nullptr) << "sequence " << id;
      if (x)
        EXPECT_TRUE(*x == *y) << "tail of sequence " << id << ", layer " << l;
      for (PageIndex p : ta.blockTable(id)) {
        std::vector<std::int8_t> pa(pageBytes), pb(pageBytes);
        std::string error;
        ASSERT_TRUE(a.readPage(p, l, pa.data(), error)) << error;
        ASSERT_TRUE(b.readPage(p, l, pb.data(), error)) << error;
        EXPECT_TRUE(pa == pb) << "page " << p << ", layer " << l;
      }
    }
  }
  for (PageIndex p = 0; p < PageIndex(c.totalPages()); ++p)
    ASSERT_EQ(a.allocator().references(p), b.allocator().references(p))
        << "page " << p;
}

std::string temporaryPath(const std::string &name) {
  return ::testing::TempDir() + "/snapshot-" + std::to_string(getpid()) + "-" +
         name;
}

std::vector<char> readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const std::string &path, const std::vector<char> &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), std::streamsize(bytes.size()));
}

/// A child process with its stdout on a pipe.
struct Child {
  pid_t pid = -1;
  int out = -1;
};

Child spawn(const std::vector<std::string> &args) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char *> argv;
  for (const std::string &a : args)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  Child child;
  EXPECT_EQ(posix_spawn(&child.pid, argv[0], &actions, nullptr, argv.data(),
                        environ),
            0);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  child.out = fds[0];
  return child;
}

/// Reads the child's output until `line` starts a line or the pipe closes.
std::string readUntil(int fd, const std::string &line, std::string text = "") {
  char buffer[4096];
  while (text.find(line) == std::string::npos) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n <= 0)
      break;
    text.append(buffer, size_t(n));
  }
  return text;
}

/// The largest G of the "done G" lines.
std::uint64_t lastDone(const std::string &text) {
  std::uint64_t last = 0;
  size_t at = 0;
  while ((at = text.find("done ", at)) != std::string::npos) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos)
      break; // a line cut by the kill
    last = std::max<std::uint64_t>(last, std::stoull(text.substr(at + 5)));
    at = end;
  }
  return last;
}

} // namespace

TEST(Snapshot, RoundTripAndResume) {
  auto cache = replay(5, 40);
  ASSERT_TRUE(cache);
  const std::string path = temporaryPath("roundtrip");
  std::string error;
  ASSERT_TRUE(writeSnapshot(*cache, path, 40, error)) << error;
  std::uint64_t generation = 0;
  auto restored = restoreSnapshot(path, crashConfig(), SharedKernels::make(),
                                  generation, error);
  ASSERT_TRUE(restored) << error;
  EXPECT_EQ(generation, 40u);
  expectSameState(*cache, *restored);
  // Appending resumes: the same steps on both give the same state.
  for (std::uint64_t s = 40; s < 60; ++s) {
    ASSERT_TRUE(crashStep(*cache, 5, s, error)) << error;
    ASSERT_TRUE(crashStep(*restored, 5, s, error)) << error;
  }
  expectSameState(*cache, *restored);
  EXPECT_EQ(access((path + ".tmp").c_str(), F_OK), -1) << "no temporary left";
  std::remove(path.c_str());
}

TEST(Snapshot, IncrementsHoldOnlyChangedPagesAndChainsRestore) {
  // A full snapshot, then increments (3 per chain): after every write the
  // chain restores to the live state; increments store fewer pages than
  // the tables list.
  auto cache = replay(8, 30);
  ASSERT_TRUE(cache);
  const std::string path = temporaryPath("chain");
  SnapshotWriter writer(path, 3);
  std::string error;
  bool smaller = false;
  std::vector<char> staleIncrement;
  for (std::uint64_t s = 30; s < 42; ++s) {
    ASSERT_TRUE(crashStep(*cache, 8, s, error)) << error;
    ASSERT_TRUE(writer.write(*cache, s + 1, error)) << error;
    std::set<PageIndex> listed;
    for (SequenceId id : cache->sequences().liveIds())
      for (PageIndex p : cache->sequences().blockTable(id))
        listed.insert(p);
    smaller |= writer.lastStoredPages() < listed.size();
    if (s == 32)
      staleIncrement = readAll(incrementPath(path, 2));
    std::uint64_t generation = 0;
    auto restored = restoreSnapshot(path, crashConfig(), SharedKernels::make(),
                                    generation, error);
    ASSERT_TRUE(restored) << "after step " << s << ": " << error;
    EXPECT_EQ(generation, s + 1);
    expectSameState(*cache, *restored);
  }
  EXPECT_TRUE(smaller) << "no increment stored fewer pages than listed";
  // Step 41 wrote increment 3 of the chain begun at step 38; put back an
  // increment of an older chain as the next one: it does not match and
  // is ignored.
  writeAll(incrementPath(path, 3 + 1), staleIncrement);
  std::uint64_t generation = 0;
  auto restored = restoreSnapshot(path, crashConfig(), SharedKernels::make(),
                                  generation, error);
  ASSERT_TRUE(restored) << error;
  EXPECT_EQ(generation, 42u);
  expectSameState(*cache, *restored);
  // A damaged increment of the chain is refused, not skipped.
  std::vector<char> inc = readAll(incrementPath(path, 1));
  inc[inc.size() - 3] ^= 0x20;
  writeAll(incrementPath(path, 1), inc);
  EXPECT_FALSE(restoreSnapshot(path, crashConfig(), SharedKernels::make(),
                               generation, error));
  EXPECT_NE(error.find(".inc.1: corrupt body"), std::string::npos) << error;
  for (int i = 1; i <= 4; ++i)
    std::remove(incrementPath(path, i).c_str());
  std::remove(path.c_str());
}

TEST(Snapshot, RefusesCorruptTruncatedForeignAndOtherCaches) {
  auto cache = replay(6, 25);
  ASSERT_TRUE(cache);
  const std::string path = temporaryPath("good"), bad = temporaryPath("bad");
  std::string error;
  ASSERT_TRUE(writeSnapshot(*cache, path, 25, error)) << error;
  const std::vector<char> good = readAll(path);
  ASSERT_GT(good.size(), 1000u);
  struct Case {
    const char *name;
    std::vector<char> bytes;
    const char *message;
  };
  std::vector<char> body = good, header = good, truncated = good;
  body[good.size() - 7] ^= 0x10;
  header[72] ^= 0x01; // the generation
  truncated.resize(good.size() - 10);
  std::string text = "hello, not a snapshot\n";
  const Case cases[] = {
      {"body", body, "corrupt body (checksum mismatch)"},
      {"header", header, "corrupt header (checksum mismatch)"},
      {"truncated", truncated, "truncated or extended"},
      {"short", std::vector<char>(good.begin(), good.begin() + 60), "truncated"},
      {"empty", {}, "not an IndexPool cache snapshot"},
      {"foreign", std::vector<char>(text.begin(), text.end()),
       "not an IndexPool cache snapshot"},
  };
  for (const Case &c : cases) {
    writeAll(bad, c.bytes);
    std::uint64_t generation = 0;
    error.clear();
    EXPECT_FALSE(restoreSnapshot(bad, crashConfig(), SharedKernels::make(),
                                 generation, error))
        << c.name;
    EXPECT_NE(error.find(c.message), std::string::npos) << c.name << ": " << error;
    EXPECT_EQ(error.rfind(bad, 0), 0u) << c.name << ": " << error;
  }
  CacheConfig other = crashConfig();
  other.k = 7;
  std::uint64_t generation = 0;
  EXPECT_FALSE(
      restoreSnapshot(path, other, SharedKernels::make(), generation, error));
  EXPECT_NE(error.find("a snapshot of another cache"), std::string::npos)
      << error;
  EXPECT_FALSE(restoreSnapshot(temporaryPath("missing"), crashConfig(),
                               SharedKernels::make(), generation, error));
  // The good file still restores.
  EXPECT_TRUE(restoreSnapshot(path, crashConfig(), SharedKernels::make(),
                              generation, error))
      << error;
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

// A snapshot's path that is not a regular file: restore refuses a FIFO
// without waiting for a writer, and snapshot never renames over one.
TEST(Snapshot, OnlyRegularFilesAreReadOrReplaced) {
  auto cache = replay(6, 10);
  ASSERT_TRUE(cache);
  const std::string fifo = temporaryPath("fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::uint64_t generation = 0;
  std::string error;
  EXPECT_FALSE(restoreSnapshot(fifo, crashConfig(), SharedKernels::make(),
                               generation, error));
  EXPECT_EQ(error, fifo + ": not a regular file");
  CacheConfig config;
  EXPECT_FALSE(readSnapshotHeader(fifo, config, generation, error));
  EXPECT_EQ(error, fifo + ": not a regular file");
  EXPECT_FALSE(writeSnapshot(*cache, fifo, 1, error));
  EXPECT_NE(error.find(fifo + ": not a regular file"), std::string::npos)
      << error;
  struct stat st;
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  // A FIFO at the temporary's name fails the write instead of blocking.
  const std::string path = temporaryPath("beside-fifo");
  const std::string temporary = path + ".tmp";
  ::unlink(temporary.c_str());
  ASSERT_EQ(::mkfifo(temporary.c_str(), 0600), 0);
  EXPECT_FALSE(writeSnapshot(*cache, path, 1, error));
  EXPECT_NE(error.find(temporary), std::string::npos) << error;
  ::unlink(temporary.c_str());
  EXPECT_TRUE(writeSnapshot(*cache, path, 1, error)) << error;
  ::unlink(fifo.c_str());
  std::remove(path.c_str());
}

// A header whose checksum is valid but whose sizes this machine cannot
// hold is refused before anything is allocated for it.
TEST(Snapshot, AHeaderTooLargeForMemoryIsRefusedBeforeAllocating) {
  auto cache = replay(6, 10);
  ASSERT_TRUE(cache);
  const std::string path = temporaryPath("huge");
  std::string error;
  ASSERT_TRUE(writeSnapshot(*cache, path, 1, error)) << error;
  const std::vector<char> original = readAll(path);
  std::vector<std::uint8_t> image(original.begin(), original.end());
  // The header's page count (a little-endian u64 at byte 64) set to 2^31,
  // then the checksums made to hold again.
  for (int i = 0; i < 8; ++i)
    image[64 + size_t(i)] = std::uint8_t(((std::uint64_t(1) << 31) >> (8 * i)));
  ASSERT_TRUE(resealSnapshot(image));
  writeAll(path, std::vector<char>(image.begin(), image.end()));
  CacheConfig config;
  std::uint64_t generation = 0;
  ASSERT_TRUE(readSnapshotHeader(path, config, generation, error)) << error;
  EXPECT_EQ(config.pages, std::uint64_t(1) << 31);
  EXPECT_FALSE(restoreSnapshot(path, config, SharedKernels::make(),
                               generation, error));
  EXPECT_NE(error.find("take more than this machine's"), std::string::npos)
      << error;
  EXPECT_EQ(error.rfind(path, 0), 0u) << error;
  std::remove(path.c_str());
}

TEST(Snapshot, KillNineRestoresTheLastCompletedSnapshot) {
  // 50 children run the workload, snapshotting after every step, and are
  // killed at a random moment after their first snapshot. Each restore must
  // give a completed snapshot (the last one reported, or one completed
  // between its rename and the report) and equal the replay of its steps.
  const std::string path = temporaryPath("kill");
  std::mt19937 rng(9);
  int restores = 0;
  for (int i = 0; i < 50; ++i) {
    std::remove(path.c_str());
    const std::uint64_t seed = 100 + i;
    Child child = spawn({INDEXPOOL_SNAPSHOT_CHILD, path, std::to_string(seed),
                         "1000000"});
    std::string text = readUntil(child.out, "done 1\n");
    ASSERT_NE(text.find("done 1\n"), std::string::npos) << text;
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, 60000)(rng)));
    kill(child.pid, SIGKILL);
    int status = 0;
    waitpid(child.pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    text = readUntil(child.out, "\x01", text); // the rest, to end of file
    close(child.out);
    const std::uint64_t done = lastDone(text);

    std::uint64_t generation = 0;
    std::string error;
    auto restored = restoreSnapshot(path, crashConfig(), SharedKernels::make(),
                                    generation, error);
    ASSERT_TRUE(restored) << "kill " << i << ": " << error;
    ASSERT_TRUE(generation == done || generation == done + 1)
        << "kill " << i << ": restored " << generation << ", last reported "
        << done;
    auto expected = replay(seed, generation);
    expectSameState(*expected, *restored);
    ++restores;
  }
  EXPECT_EQ(restores, 50);
  std::remove(path.c_str());
  std::remove((path + ".tmp").c_str());
  for (int i = 1; i <= 4; ++i)
    std::remove(incrementPath(path, i).c_str());
}

TEST(Snapshot, ADiskFullKeepsThePreviousSnapshot) {
  // 12 steps, the 12th snapshot written under a 1 KiB file size limit.
  const std::string path = temporaryPath("full");
  Child child = spawn({INDEXPOOL_SNAPSHOT_CHILD, path, "77", "12",
                       "--file-size-limit=1024"});
  std::string text = readUntil(child.out, "\x01");
  close(child.out);
  int status = 0;
  waitpid(child.pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3) << text;
  EXPECT_NE(text.find("failed 12: writing the snapshot: File too large (the "
                      "previous snapshot, if any, is kept)"),
            std::string::npos)
      << text;
  EXPECT_EQ(access((path + ".tmp").c_str(), F_OK), -1) << "no temporary left";
  std::uint64_t generation = 0;
  std::string error;
  auto restored = restoreSnapshot(path, crashConfig(), SharedKernels::make(),
                                  generation, error);
  ASSERT_TRUE(restored) << error;
  EXPECT_EQ(generation, 11u);
  expectSameState(*replay(77, 11), *restored);
  std::remove(path.c_str());
}
