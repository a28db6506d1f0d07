//===- FileReadTest.cpp - whole files read with a byte limit --------------===//
//
// Regular files are judged by their size; streams (a pipe, /dev/zero) are
// read one byte past the limit and no further, so none reads forever.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/FileRead.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>
#include <unistd.h>

using namespace indexpool::runtime;

namespace {

std::string tempPath(const char *suffix) {
  return ::testing::TempDir() + "indexpool_FileReadTest_" +
         std::to_string(getpid()) + suffix;
}

TEST(FileReadTest, RegularFilesAreJudgedByTheirSize) {
  std::string path = tempPath(".txt");
  std::ofstream(path, std::ios::binary) << std::string(100, 'x');
  std::string text, error;
  ASSERT_TRUE(readFileWithLimit(path, 100, "a test file", text, error))
      << error;
  EXPECT_EQ(text, std::string(100, 'x'));
  EXPECT_FALSE(readFileWithLimit(path, 99, "a test file", text, error));
  EXPECT_EQ(error, path + ": larger than the limit of 99 bytes for a test "
                          "file");
  EXPECT_TRUE(text.empty());
  std::remove(path.c_str());
}

TEST(FileReadTest, MissingFilesAndDirectories) {
  std::string text, error;
  EXPECT_FALSE(readFileWithLimit("/no/such/file", 10, "x", text, error));
  EXPECT_EQ(error, "/no/such/file: cannot open: No such file or directory");
  EXPECT_FALSE(readFileWithLimit("/", 10, "x", text, error));
  EXPECT_EQ(error, "/: not a regular file (a directory)");
  // The .mlir tools keep MLIR's wording for a file that cannot be opened.
  EXPECT_FALSE(readMlirInput("/no/such/file.mlir", text, error));
  EXPECT_EQ(error, "cannot open input file '/no/such/file.mlir': No such "
                   "file or directory");
}

TEST(FileReadTest, CharacterDevicesStopAtTheLimit) {
  std::string text, error;
  EXPECT_FALSE(readFileWithLimit("/dev/zero", int64_t(1) << 20, "a test file",
                                 text, error));
  EXPECT_EQ(error, "/dev/zero: larger than the limit of 1048576 bytes "
                   "(1 MiB) for a test file");
  // The named limits are what the messages of the tools say.
  EXPECT_EQ(byteSizeText(kMaxMlirTextBytes), "256 MiB");
  EXPECT_EQ(byteSizeText(kMaxJsonBytes), "64 MiB");
  EXPECT_EQ(byteSizeText(kMaxKernelBinaryBytes), "256 MiB");
  EXPECT_EQ(kMaxHostElements, int64_t(1) << 30);
}

/// Writes `data` into a pipe, then (when `endless`) zeros until the reader
/// closes it; the path reads the pipe.
class PipeWriter {
public:
  PipeWriter(std::string data, bool endless) {
    std::signal(SIGPIPE, SIG_IGN);
    EXPECT_EQ(pipe(fds), 0);
    writer = std::thread([this, data = std::move(data), endless] {
      bool ok = writeAll(data);
      std::string zeros(4096, '\0');
      while (ok && endless)
        ok = writeAll(zeros);
      close(fds[1]);
    });
  }
  ~PipeWriter() {
    close(fds[0]); // the writer then fails with EPIPE and stops
    writer.join();
  }
  std::string path() const { return "/dev/fd/" + std::to_string(fds[0]); }

private:
  bool writeAll(const std::string &data) {
    for (size_t done = 0; done < data.size();) {
      ssize_t n = write(fds[1], data.data() + done, data.size() - done);
      if (n <= 0)
        return false;
      done += size_t(n);
    }
    return true;
  }
  int fds[2] = {-1, -1};
  std::thread writer;
};

TEST(FileReadTest, StreamsAreReadUpToTheLimit) {
  std::string text, error;
  {
    PipeWriter pipe(std::string(1000, 'a'), /*endless=*/false);
    ASSERT_TRUE(readFileWithLimit(pipe.path(), 1000, "a test file", text,
                                  error))
        << error;
    EXPECT_EQ(text, std::string(1000, 'a'));
  }
  {
    PipeWriter pipe("abc", /*endless=*/true);
    EXPECT_FALSE(readFileWithLimit(pipe.path(), 3 << 20, "a test file", text,
                                   error));
    EXPECT_EQ(error, pipe.path() + ": larger than the limit of 3145728 bytes "
                                   "(3 MiB) for a test file");
  }
}

} // namespace
