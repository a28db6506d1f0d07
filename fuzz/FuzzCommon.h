//===- FuzzCommon.h - what the fuzz targets share ----------------*- C++
//-*-===//
//
// The readers under test take a path (they open, size and read files with
// limits themselves), so a target hands them its bytes as an in-memory file:
// a memfd, reopened by the reader through /proc/self/fd/N.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_FUZZ_FUZZCOMMON_H
#define INDEXPOOL_FUZZ_FUZZCOMMON_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

// Sanitizer settings that hold however a target is started (fuzz.sh, lit,
// by hand); this header is included once per target. The libraries here are
// instrumented but libLLVM/libMLIR are not: LLVM's BumpPtrAllocator poisons
// its slabs when instantiated in an instrumented file and the uninstrumented
// copy hands the memory out without unpoisoning it, a false
// use-after-poison. libomp keeps its threads' descriptors until exit.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
extern "C" const char *__lsan_default_suppressions() {
  return "leak:libomp.so\n";
}

namespace indexpool::fuzz {

/// Prints a one-line reason and aborts: how a target reports a finding
/// (libFuzzer saves the input and prints the stack).
[[noreturn]] inline void finding(const std::string &what) {
  std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

/// An in-memory file whose contents are replaced by every write().
class MemFile {
public:
  explicit MemFile(const char *name) {
    fd = memfd_create(name, 0);
    if (fd < 0)
      finding("memfd_create failed");
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  ~MemFile() { close(fd); }
  MemFile(const MemFile &) = delete;
  MemFile &operator=(const MemFile &) = delete;

  void write(const uint8_t *data, size_t size) {
    if (ftruncate(fd, 0) != 0)
      finding("ftruncate failed");
    size_t done = 0;
    while (done < size) {
      ssize_t n = pwrite(fd, data + done, size - done, off_t(done));
      if (n <= 0)
        finding("pwrite failed");
      done += size_t(n);
    }
  }

  std::string path;

private:
  int fd = -1;
};

} // namespace indexpool::fuzz

#endif // INDEXPOOL_FUZZ_FUZZCOMMON_H
