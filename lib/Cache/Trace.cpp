//===- Trace.cpp - Trace files and the three workload generators ----------===//

#include "indexpool/Cache/Trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <unordered_set>

using namespace indexpool::cache;

static constexpr const char *kHeader = "indexpool-cache-trace 1";
/// The longest line of a trace file (a page id has at most 19 digits).
static constexpr size_t kMaxTraceLine = 64;

PageId indexpool::cache::pageOf(std::uint64_t sequence, std::uint64_t index) {
  return (sequence << 24) | (index & ((std::uint64_t(1) << 24) - 1));
}

bool indexpool::cache::readTrace(const std::string &path, Trace &trace,
                                 std::string &error) {
  std::ifstream in(path);
  if (!in) {
    error = path + ": cannot open the trace file";
    return false;
  }
  trace.name = path.substr(path.find_last_of('/') + 1);
  trace.references.clear();
  std::string line;
  std::uint64_t number = 0;
  auto fail = [&](const std::string &why) {
    error = path + ":" + std::to_string(number) + ": " + why;
    return false;
  };
  bool header = false;
  // Lines are read into a bounded buffer: a file without line ends
  // (/dev/zero) fails at its first line instead of growing one string.
  char buffer[kMaxTraceLine + 3]; // the line, a '\r', a byte too many, NUL
  for (;;) {
    in.getline(buffer, sizeof buffer);
    if (in.bad())
      break;
    if (in.gcount() == 0 && in.eof())
      break;
    ++number;
    // The buffer filled before the line's end: too long to be the header
    // or a page id.
    bool tooLong = in.fail() && !in.eof();
    line.assign(tooLong ? "" : buffer);
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (!header) {
      if (tooLong || line != kHeader)
        return fail(std::string("not a trace file: the first line must be '") +
                    kHeader + "'");
      header = true;
      continue;
    }
    if (tooLong || line.size() > kMaxTraceLine)
      return fail("line longer than " + std::to_string(kMaxTraceLine) +
                  " characters");
    if (line.empty() || line[0] == '#')
      continue;
    PageId page = 0;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), page);
    if (ec != std::errc() || end != line.data() + line.size() ||
        page >= (std::uint64_t(1) << 63))
      return fail("expected a page id (a decimal number below 2^63), got '" +
                  line + "'");
    if (trace.references.size() >= kMaxTraceReferences)
      return fail("more than " + std::to_string(kMaxTraceReferences) +
                  " references");
    trace.references.push_back(page);
  }
  if (in.bad())
    return fail("read error");
  if (!header) {
    error = path + ": empty file, not a trace";
    return false;
  }
  return true;
}

bool indexpool::cache::writeTrace(const std::string &path, const Trace &trace,
                                  std::string &error) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << kHeader << "\n# " << trace.name << ": " << trace.references.size()
        << " references\n";
    for (PageId page : trace.references)
      out << page << "\n";
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      error = path + ": cannot write the trace file";
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    error = path + ": cannot write the trace file";
    return false;
  }
  return true;
}

std::uint64_t indexpool::cache::distinctPages(const Trace &trace) {
  return std::unordered_set<PageId>(trace.references.begin(),
                                    trace.references.end())
      .size();
}

namespace {

/// SplitMix64: the same numbers on every machine and standard library
/// (std::uniform_int_distribution's are implementation-defined).
class Random {
public:
  explicit Random(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n), n >= 1.
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>(
        (static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  /// Uniform in [lo, hi].
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) {
    return lo + below(hi - lo + 1);
  }
  double unit() { return double(next() >> 11) * 0x1.0p-53; }

private:
  std::uint64_t state;
};

/// Zipf over [0, n) with exponent s: item i with weight 1 / (i + 1)^s.
class Zipf {
public:
  Zipf(std::uint64_t n, double s) {
    double sum = 0;
    for (std::uint64_t i = 0; i < n; ++i)
      cdf.push_back(sum += 1.0 / std::pow(double(i + 1), s));
    for (double &c : cdf)
      c /= sum;
  }
  std::uint64_t draw(Random &random) const {
    auto it = std::lower_bound(cdf.begin(), cdf.end(), random.unit());
    return std::min<std::uint64_t>(it - cdf.begin(), cdf.size() - 1);
  }

private:
  std::vector<double> cdf;
};

/// Every page of a sequence, once: one decode step's select.
void readAll(Trace &trace, std::uint64_t sequence, std::uint64_t pages) {
  for (std::uint64_t p = 0; p < pages; ++p)
    trace.references.push_back(pageOf(sequence, p));
}

/// 8 tenants (Zipf 1.0) with 24-page system prompts; 32 sequences decode
/// at once, each with 4..40 pages of its own, one more every 16 steps, for
/// 48..160 steps; then a new sequence takes its place. 12000 steps.
void tenants(Random &random, Trace &trace) {
  constexpr std::uint64_t kTenants = 8, kPrompt = 24, kActive = 32,
                          kSteps = 12000;
  Zipf tenant(kTenants, 1.0);
  struct Sequence {
    std::uint64_t id, tenant, own, age, life;
  };
  std::uint64_t nextId = kTenants; // ids below kTenants: the prompts
  auto start = [&]() {
    return Sequence{nextId++, tenant.draw(random), random.between(4, 40), 0,
                    random.between(48, 160)};
  };
  std::vector<Sequence> active;
  for (std::uint64_t i = 0; i < kActive; ++i)
    active.push_back(start());
  for (std::uint64_t step = 0; step < kSteps; ++step) {
    Sequence &s = active[step % kActive];
    readAll(trace, s.tenant, kPrompt); // the shared prompt pages
    readAll(trace, s.id, s.own);
    if (++s.age % 16 == 0)
      ++s.own;
    if (s.age == s.life)
      s = start();
  }
}

/// 64 documents of 16..128 pages (Zipf 0.8); each session queries one for
/// 4..16 steps. 2500 sessions.
void requery(Random &random, Trace &trace) {
  constexpr std::uint64_t kDocuments = 64, kSessions = 2500;
  Zipf document(kDocuments, 0.8);
  std::vector<std::uint64_t> pages;
  for (std::uint64_t d = 0; d < kDocuments; ++d)
    pages.push_back(random.between(16, 128));
  for (std::uint64_t s = 0; s < kSessions; ++s) {
    std::uint64_t d = document.draw(random);
    for (std::uint64_t steps = random.between(4, 16); steps > 0; --steps)
      readAll(trace, d, pages[d]);
  }
}

/// 16 sequences of 32 pages decode in turn; every 256 steps a new one-off
/// document of 2048 pages is read once. 25600 steps.
void scan(Random &random, Trace &trace) {
  constexpr std::uint64_t kHot = 16, kPages = 32, kScanPages = 2048,
                          kSteps = 25600;
  std::uint64_t nextScan = kHot;
  for (std::uint64_t step = 0; step < kSteps; ++step) {
    if (step % 256 == 255)
      readAll(trace, nextScan++, kScanPages);
    // Sequences decode in a random order within each round.
    readAll(trace, random.below(kHot), kPages);
  }
}

} // namespace

std::vector<std::string> indexpool::cache::traceKinds() {
  return {"tenants", "requery", "scan"};
}

bool indexpool::cache::generateTrace(const std::string &kind,
                                     std::uint64_t seed, Trace &trace,
                                     std::string &error) {
  Random random(seed);
  trace.name = kind;
  trace.references.clear();
  if (kind == "tenants")
    tenants(random, trace);
  else if (kind == "requery")
    requery(random, trace);
  else if (kind == "scan")
    scan(random, trace);
  else {
    error = "unknown trace kind '" + kind + "' (tenants, requery or scan)";
    return false;
  }
  return true;
}
