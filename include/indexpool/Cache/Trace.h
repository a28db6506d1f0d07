//===- Trace.h - Page reference traces for the cache simulator ------------===//
//
// A trace is the sequence of page references a serving engine's selects
// make (each decode step of a sequence reads every page of its indexer
// cache). Traces are files, so that one recorded from an engine can be
// replayed, and come from generators of three workloads:
//
//   tenants  multi-tenant decode: sequences of a few tenants share their
//            tenant's system-prompt pages (forked, copy-on-write) and append
//            their own; they arrive, decode a while and finish.
//   requery  long documents queried in bursts, then paused while others are,
//            then queried again (popularity: Zipf).
//   scan     a hot set of decoding sequences, and from time to time a long
//            one-off document read once (a prefill), which floods LRU.
//
// File format (text): the line "indexpool-cache-trace 1", then one page id
// (decimal, below 2^63) per line; '#' starts a comment line.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_TRACE_H
#define INDEXPOOL_CACHE_TRACE_H

#include "indexpool/Cache/EvictionPolicy.h"

#include <string>
#include <vector>

namespace indexpool::cache {

struct Trace {
  std::string name;
  std::vector<PageId> references;
};

/// Page `index` of sequence `sequence` (sequences below 2^39, pages below
/// 2^24).
PageId pageOf(std::uint64_t sequence, std::uint64_t index);

/// The most references a trace file may hold (64 Mi: 512 MiB in memory).
constexpr std::uint64_t kMaxTraceReferences = std::uint64_t(1) << 26;

/// Reads a trace file; false with `error` naming the file and line.
bool readTrace(const std::string &path, Trace &trace, std::string &error);
/// Writes `trace` (atomically: a temporary file renamed over `path`).
bool writeTrace(const std::string &path, const Trace &trace,
                std::string &error);

/// The generators' names: tenants, requery, scan.
std::vector<std::string> traceKinds();
/// A generated trace of `kind`, the same for the same seed on every machine;
/// false with `error` set for an unknown kind.
bool generateTrace(const std::string &kind, std::uint64_t seed, Trace &trace,
                   std::string &error);

/// Distinct pages of a trace.
std::uint64_t distinctPages(const Trace &trace);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_TRACE_H
