//===- trace_reader.cpp - fuzz the cache simulator's trace reader ---------===//
//
// Input: the bytes of a trace file. readTrace must either fail with one line
// that names the file or return page ids below 2^63 that survive writeTrace
// + readTrace unchanged; replayed through two small tiers under LRU and
// LRU-2, every reference is a hit somewhere or a miss, and no tier holds
// more than its budget.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "indexpool/Cache/TieredPages.h"
#include "indexpool/Cache/Trace.h"

#include <cstdio>
#include <string>

using namespace indexpool::cache;
using indexpool::fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static indexpool::fuzz::MemFile input("trace-input");
  input.write(data, size);

  Trace trace;
  std::string error;
  if (!readTrace(input.path, trace, error)) {
    if (error.empty() || error.find('\n') != std::string::npos ||
        error.find(input.path) == std::string::npos)
      finding("readTrace failed without one line naming the file: '" + error +
              "'");
    return 0;
  }
  for (PageId page : trace.references)
    if (page >> 63)
      finding("readTrace accepted page id " + std::to_string(page));

  static const std::string copy = "/tmp/indexpool-fuzz-trace-" +
                                  std::to_string(getpid()) + ".trace";
  Trace back;
  if (!writeTrace(copy, trace, error) || !readTrace(copy, back, error))
    finding("a trace read back failed: " + error);
  std::remove(copy.c_str());
  if (back.references != trace.references)
    finding("a trace changed through writeTrace + readTrace");

  for (const char *policy : {"lru", "lru-k:2:3"}) {
    auto pages = TieredPages::create({{"device", 3}, {"host", 2}}, policy, error);
    if (!pages)
      finding(error);
    for (PageId page : trace.references) {
      pages->reference(page);
      if (pages->tierOf(page) != 0 || pages->residentPages(0) > 3 ||
          pages->residentPages(1) > 2)
        finding(std::string(policy) + ": a tier broke its budget");
    }
    if (pages->counters(0).hits + pages->counters(1).hits + pages->misses() !=
        trace.references.size())
      finding(std::string(policy) + ": hits and misses do not add up");
  }
  return 0;
}
