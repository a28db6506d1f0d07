//===- TraceTest.cpp - Trace files and generators -------------------------===//

#include "indexpool/Cache/Trace.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace indexpool::cache;

namespace {

std::string temporaryPath(const std::string &name) {
  return ::testing::TempDir() + "/cache-trace-" + std::to_string(getpid()) +
         "-" + name;
}

std::string writeText(const std::string &name, const std::string &text) {
  std::string path = temporaryPath(name);
  std::ofstream(path) << text;
  return path;
}

} // namespace

TEST(Trace, PageIdsPackSequenceAndIndex) {
  EXPECT_EQ(pageOf(0, 5), 5u);
  EXPECT_EQ(pageOf(3, 1), (3u << 24) + 1);
  EXPECT_NE(pageOf(1, 0), pageOf(0, 1));
}

TEST(Trace, GeneratedTracesAreDeterministicAndDiffer) {
  for (const std::string &kind : traceKinds()) {
    Trace a, b, c;
    std::string error;
    ASSERT_TRUE(generateTrace(kind, 1, a, error)) << error;
    ASSERT_TRUE(generateTrace(kind, 1, b, error)) << error;
    ASSERT_TRUE(generateTrace(kind, 2, c, error)) << error;
    EXPECT_EQ(a.references, b.references) << kind;
    EXPECT_NE(a.references, c.references) << kind;
    EXPECT_GT(a.references.size(), 100000u) << kind;
    EXPECT_GT(distinctPages(a), 500u) << kind;
  }
  Trace t;
  std::string error;
  EXPECT_FALSE(generateTrace("zipf", 1, t, error));
  EXPECT_NE(error.find("unknown trace kind 'zipf'"), std::string::npos);
}

TEST(Trace, FilesRoundTrip) {
  Trace trace;
  std::string error;
  ASSERT_TRUE(generateTrace("requery", 3, trace, error)) << error;
  std::string path = temporaryPath("roundtrip");
  ASSERT_TRUE(writeTrace(path, trace, error)) << error;
  Trace back;
  ASSERT_TRUE(readTrace(path, back, error)) << error;
  EXPECT_EQ(back.references, trace.references);
  std::remove(path.c_str());
}

TEST(Trace, BadFilesGetClearErrors) {
  struct Case {
    const char *name, *text, *message;
  } cases[] = {
      // No line end within the limit: refused at the first line, without
      // reading the rest (a header of 1 MiB, or /dev/zero below).
      {"endless header", nullptr, ":1: not a trace file"},
      {"endless line", "indexpool-cache-trace 1\n1", ":2: line longer than 64"},
      {"empty", "", "empty file, not a trace"},
      {"header", "pages\n1\n", ":1: not a trace file"},
      {"word", "indexpool-cache-trace 1\n12\nseven\n", ":3: expected a page id"},
      {"negative", "indexpool-cache-trace 1\n-1\n", ":2: expected a page id"},
      {"huge", "indexpool-cache-trace 1\n9223372036854775808\n",
       ":2: expected a page id"},
      {"overflow", "indexpool-cache-trace 1\n99999999999999999999999\n",
       ":2: expected a page id"},
      {"spaces", "indexpool-cache-trace 1\n 5\n", ":2: expected a page id"},
      {"long", "indexpool-cache-trace 1\n# "
               "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
       ":2: line longer than 64 characters"},
  };
  for (const Case &c : cases) {
    std::string text = c.text ? c.text : "";
    if (!c.text || std::string(c.name) == "endless line")
      text += std::string(1 << 20, '1');
    std::string path = writeText(c.name, text), error;
    Trace trace;
    EXPECT_FALSE(readTrace(path, trace, error)) << c.name;
    EXPECT_NE(error.find(c.message), std::string::npos) << c.name << ": " << error;
    EXPECT_EQ(error.rfind(path, 0), 0u) << "the error names the file: " << error;
    std::remove(path.c_str());
  }
  std::string error;
  Trace trace;
  EXPECT_FALSE(readTrace(temporaryPath("missing"), trace, error));
  EXPECT_NE(error.find("cannot open"), std::string::npos);
  EXPECT_FALSE(readTrace("/dev/zero", trace, error));
  EXPECT_EQ(error.rfind("/dev/zero:1: not a trace file", 0), 0u) << error;
}

TEST(Trace, CommentsAndCrLfAreAccepted) {
  std::string path = writeText(
      "comments", "indexpool-cache-trace 1\r\n# a comment\r\n4\r\n\r\n9223372036854775807\r\n");
  Trace trace;
  std::string error;
  ASSERT_TRUE(readTrace(path, trace, error)) << error;
  EXPECT_EQ(trace.references, (std::vector<PageId>{4, 9223372036854775807ull}));
  std::remove(path.c_str());
}
