//===- SnapshotChild.cpp - cache-snapshot-child, killed by the tests ------===//
//
//   cache-snapshot-child SNAPSHOT SEED STEPS [--file-size-limit=BYTES]
//
// Runs the crash workload, writing SNAPSHOT (a full snapshot, then up to 4
// increments, SnapshotWriter) after every step and printing
// "done G" on stdout (flushed) once snapshot G is complete. The tests kill
// it with SIGKILL at random moments. With --file-size-limit (RLIMIT_FSIZE,
// a full disk) it writes once more over an existing snapshot and exits 3
// when that write fails, printing the error.
//
//===----------------------------------------------------------------------===//

#include "CrashWorkload.h"

#include "indexpool/Cache/Snapshot.h"
#include "indexpool/CacheCpu/CpuCacheKernels.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>

using namespace indexpool::cache;

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: cache-snapshot-child SNAPSHOT SEED STEPS "
                         "[--file-size-limit=BYTES]\n");
    return 2;
  }
  const std::string path = argv[1];
  const std::uint64_t seed = std::strtoull(argv[2], nullptr, 10);
  const std::uint64_t steps = std::strtoull(argv[3], nullptr, 10);
  long long limit = -1;
  if (argc > 4 && std::string(argv[4]).rfind("--file-size-limit=", 0) == 0)
    limit = std::atoll(argv[4] + 18);
  std::string error;
  CacheConfig config = crashtest::crashConfig();
  auto cache = PagedCache::create(config, makeCpuCacheKernels(config, 1, error),
                                  error);
  if (!cache) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  SnapshotWriter writer(path, 4);
  for (std::uint64_t step = 0; step < steps; ++step) {
    if (!crashtest::crashStep(*cache, seed, step, error)) {
      std::fprintf(stderr, "step %llu: %s\n", (unsigned long long)step,
                   error.c_str());
      return 1;
    }
    // The last write of a --file-size-limit run meets a full disk: writes
    // past the limit fail with EFBIG (the soft limit only, lifted again
    // right after, so nothing else of the process meets it).
    const bool full = limit >= 0 && step + 1 == steps;
    struct rlimit saved;
    getrlimit(RLIMIT_FSIZE, &saved);
    if (full) {
      std::signal(SIGXFSZ, SIG_IGN);
      struct rlimit r = {rlim_t(limit), saved.rlim_max};
      setrlimit(RLIMIT_FSIZE, &r);
    }
    const bool written = writer.write(*cache, step + 1, error);
    if (full)
      setrlimit(RLIMIT_FSIZE, &saved);
    if (!written) {
      std::printf("failed %llu: %s\n", (unsigned long long)(step + 1),
                  error.c_str());
      std::fflush(stdout);
      return 3;
    }
    std::printf("done %llu\n", (unsigned long long)(step + 1));
    std::fflush(stdout);
  }
  return 0;
}
