//===- Snapshot.cpp - Crash-safe snapshots of a PagedCache ----------------===//
//
// XXH64 (libxxhash, Debian's xxhash) checks the header and the body: fast
// enough to hash gigabytes at memory speed, and what the file format names.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/Snapshot.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

using namespace indexpool::cache;
using indexpool::ElementType;
namespace ElementUse = indexpool::ElementUse;
using indexpool::kNumElementTypes;

namespace {

constexpr char kMagic[8] = {'I', 'P', 'C', 'A', 'C', 'H', 'E', '1'};
// Version 3 added the pooling parameters (8 header bytes, the bias in the
// body), version 4 the token tier (refine, 8 header bytes; each page's
// token-tier layers after its pooled layers); version 2 files (no bias,
// temperature 1, scores per token) and version 3 files (refine 0) are still
// read. Version 5 added the pooled code type (bits 8-15 of the pooling
// word: its ElementTypes.def row; older files hold FP8 codes).
constexpr std::uint32_t kVersion = 5;
constexpr size_t kHeaderBytes = 144, kHeaderBytesV3 = 136,
                 kHeaderBytesV2 = 128;

void put32(std::uint8_t *p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = std::uint8_t(v >> (8 * i));
}
void put64(std::uint8_t *p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = std::uint8_t(v >> (8 * i));
}
std::uint32_t get32(const std::uint8_t *p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= std::uint32_t(p[i]) << (8 * i);
  return v;
}
std::uint64_t get64(const std::uint8_t *p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= std::uint64_t(p[i]) << (8 * i);
  return v;
}

struct Header {
  std::uint32_t version = kVersion;
  size_t headerBytes = kHeaderBytes;
  CacheConfig config;
  std::uint64_t generation = 0, sequences = 0, storedPages = 0, nextId = 0,
                bodyBytes = 0, bodyHash = 0;
};

// Offsets of the header's fields.
enum : size_t {
  kVersionAt = 8, kSizeAt = 12, kLayersAt = 16, kDimAt = 24, kPoolAt = 32,
  kEntriesAt = 40, kHeadsAt = 48, kKAt = 56, kPagesAt = 64,
  kGenerationAt = 72, kSequencesAt = 80, kStoredAt = 88, kNextAt = 96,
  kBodyBytesAt = 104, kBodyHashAt = 112, kTemperatureAt = 120,
  kPoolingAt = 124, kRefineAt = 128, kHeaderHashAt = 136,
  kHeaderHashAtV3 = 128, kHeaderHashAtV2 = 120
};

size_t headerBytesOf(std::uint32_t version) {
  return version == 2 ? kHeaderBytesV2
         : version == 3 ? kHeaderBytesV3
                        : kHeaderBytes;
}
size_t headerHashAtOf(std::uint32_t version) {
  return version == 2 ? kHeaderHashAtV2
         : version == 3 ? kHeaderHashAtV3
                        : kHeaderHashAt;
}

// kPoolingAt: bit 0 scores per channel, bits 1-2 the bias kind, bits 8-15
// the code type (version 5).
const char *const kBiasKinds[] = {"none", "slot", "channel"};

void encodeHeader(const Header &h, std::uint8_t *out) {
  std::memset(out, 0, kHeaderBytes);
  std::memcpy(out, kMagic, 8);
  put32(out + kVersionAt, kVersion);
  put32(out + kSizeAt, kHeaderBytes);
  put64(out + kLayersAt, std::uint64_t(h.config.layers));
  put64(out + kDimAt, std::uint64_t(h.config.dim));
  put64(out + kPoolAt, std::uint64_t(h.config.poolSize));
  put64(out + kEntriesAt, std::uint64_t(h.config.pageEntries));
  put64(out + kHeadsAt, std::uint64_t(h.config.heads));
  put64(out + kKAt, std::uint64_t(h.config.k));
  put64(out + kPagesAt, h.config.totalPages());
  put64(out + kGenerationAt, h.generation);
  put64(out + kSequencesAt, h.sequences);
  put64(out + kStoredAt, h.storedPages);
  put64(out + kNextAt, h.nextId);
  put64(out + kBodyBytesAt, h.bodyBytes);
  put64(out + kBodyHashAt, h.bodyHash);
  std::uint32_t temperature;
  std::memcpy(&temperature, &h.config.temperature, 4);
  put32(out + kTemperatureAt, temperature);
  std::uint32_t bias = 0;
  while (bias < 2 && h.config.bias != kBiasKinds[bias])
    ++bias;
  put32(out + kPoolingAt,
        (h.config.perChannelScores ? 1u : 0u) | (bias << 1) |
            (std::uint32_t(h.config.codes) << 8));
  put64(out + kRefineAt, std::uint64_t(h.config.refine));
  put64(out + kHeaderHashAt, XXH64(out, kHeaderHashAt, 0));
}

/// "" when `bytes` is a header of this format, else why not.
std::string decodeHeader(const std::uint8_t *in, Header &h) {
  if (std::memcmp(in, kMagic, 8) != 0)
    return "not an IndexPool cache snapshot";
  h.version = get32(in + kVersionAt);
  if (h.version < 2 || h.version > kVersion)
    return "snapshot format version " + std::to_string(h.version) +
           ", this build reads versions 2 to " + std::to_string(kVersion);
  h.headerBytes = headerBytesOf(h.version);
  const size_t hashAt = headerHashAtOf(h.version);
  if (get64(in + hashAt) != XXH64(in, hashAt, 0) ||
      get32(in + kSizeAt) != h.headerBytes)
    return "corrupt header (checksum mismatch)";
  if (h.version >= 3) {
    const std::uint32_t temperature = get32(in + kTemperatureAt),
                        pooling = get32(in + kPoolingAt);
    std::memcpy(&h.config.temperature, &temperature, 4);
    const std::uint32_t codes = h.version >= 5 ? (pooling >> 8) & 0xFF : 0;
    const std::uint32_t flags = pooling & (h.version >= 5 ? 0xFFFF00FFu : ~0u);
    if (((flags >> 1) & 3) > 2 || (flags >> 3) != 0)
      return "corrupt header (pooling parameters)";
    h.config.perChannelScores = flags & 1;
    h.config.bias = kBiasKinds[(flags >> 1) & 3];
    if (h.version >= 5) {
      if (codes >= std::uint32_t(kNumElementTypes) ||
          !elementTypeInfo(ElementType(codes)).allows(ElementUse::PagedCode))
        return indexpool::unknownElementTypeMessage(
            codes < std::uint32_t(kNumElementTypes)
                ? elementTypeName(ElementType(codes))
                : "row " + std::to_string(codes),
            "code type", ElementUse::PagedCode);
      h.config.codes = ElementType(codes);
    }
  }
  // Older files have no token tier.
  if (h.version >= 4) {
    const std::uint64_t refine = get64(in + kRefineAt);
    if (refine > std::uint64_t(INT64_MAX))
      return "corrupt header (refine)";
    h.config.refine = std::int64_t(refine);
  }
  auto i64 = [&](size_t at) { return std::int64_t(get64(in + at)); };
  h.config.layers = i64(kLayersAt);
  h.config.dim = i64(kDimAt);
  h.config.poolSize = i64(kPoolAt);
  h.config.pageEntries = i64(kEntriesAt);
  h.config.heads = i64(kHeadsAt);
  h.config.k = i64(kKAt);
  h.config.pages = get64(in + kPagesAt);
  h.generation = get64(in + kGenerationAt);
  h.sequences = get64(in + kSequencesAt);
  h.storedPages = get64(in + kStoredAt);
  h.nextId = get64(in + kNextAt);
  h.bodyBytes = get64(in + kBodyBytesAt);
  h.bodyHash = get64(in + kBodyHashAt);
  return "";
}

std::string systemError(const std::string &what) {
  return what + ": " + std::strerror(errno);
}

/// Buffered writes to a file descriptor, hashed as they go.
class BodyWriter {
public:
  explicit BodyWriter(int fd) : fd(fd), state(XXH64_createState()) {
    XXH64_reset(state, 0);
  }
  ~BodyWriter() { XXH64_freeState(state); }
  void bytes(const void *data, size_t size) {
    XXH64_update(state, data, size);
    written += size;
    const auto *p = static_cast<const std::uint8_t *>(data);
    while (size && ok) {
      size_t take = std::min(size, kBuffer - buffer.size());
      buffer.insert(buffer.end(), p, p + take);
      p += take;
      size -= take;
      if (buffer.size() == kBuffer)
        flush();
    }
  }
  void u64(std::uint64_t v) {
    std::uint8_t b[8];
    put64(b, v);
    bytes(b, 8);
  }
  void u32(std::uint32_t v) {
    std::uint8_t b[4];
    put32(b, v);
    bytes(b, 4);
  }
  void floats(const std::vector<float> &v) {
    for (float f : v) {
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      u32(bits);
    }
  }
  void flush() {
    size_t done = 0;
    while (ok && done < buffer.size()) {
      ssize_t n = ::write(fd, buffer.data() + done, buffer.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        ok = false;
        error = systemError("writing the snapshot");
      }
      done += n > 0 ? size_t(n) : 0;
    }
    buffer.clear();
  }
  std::uint64_t hash() const { return XXH64_digest(state); }

  bool ok = true;
  std::string error;
  std::uint64_t written = 0;

private:
  static constexpr size_t kBuffer = 1 << 20;
  int fd;
  XXH64_state_t *state;
  std::vector<std::uint8_t> buffer;
};

/// Reads the body, bounds-checked.
class BodyReader {
public:
  explicit BodyReader(const std::vector<std::uint8_t> &body) : body(body) {}
  bool take(size_t size, const std::uint8_t *&p) {
    if (size > body.size() - at)
      return false;
    p = body.data() + at;
    at += size;
    return true;
  }
  bool u64(std::uint64_t &v) {
    const std::uint8_t *p;
    if (!take(8, p))
      return false;
    v = get64(p);
    return true;
  }
  bool u32(std::uint32_t &v) {
    const std::uint8_t *p;
    if (!take(4, p))
      return false;
    v = get32(p);
    return true;
  }
  bool floats(size_t n, std::vector<float> &v) {
    const std::uint8_t *p;
    if (n > (body.size() - at) / 4 || !take(4 * n, p))
      return false;
    v.resize(n);
    for (size_t i = 0; i < n; ++i) {
      std::uint32_t bits = get32(p + 4 * i);
      std::memcpy(&v[i], &bits, 4);
    }
    return true;
  }
  bool done() const { return at == body.size(); }

private:
  const std::vector<std::uint8_t> &body;
  size_t at = 0;
};

/// The same cache: shapes, every tier's pages together, and the pooling
/// the kernels are compiled for (the bias values come from the snapshot).
bool sameConfig(const CacheConfig &a, const CacheConfig &b) {
  return a.layers == b.layers && a.dim == b.dim && a.poolSize == b.poolSize &&
         a.pageEntries == b.pageEntries && a.heads == b.heads && a.k == b.k &&
         a.totalPages() == b.totalPages() &&
         a.perChannelScores == b.perChannelScores && a.bias == b.bias &&
         std::memcmp(&a.temperature, &b.temperature, 4) == 0 &&
         a.refine == b.refine && a.codes == b.codes;
}

std::string describe(const CacheConfig &c) {
  return std::to_string(c.layers) + " layers, D = " + std::to_string(c.dim) +
         ", P = " + std::to_string(c.poolSize) + ", E = " +
         std::to_string(c.pageEntries) + ", " + elementTypeName(c.codes) +
         " codes, H = " + std::to_string(c.heads) +
         ", k = " + std::to_string(c.k) + ", " +
         std::to_string(c.totalPages()) + " pages, scores per " +
         (c.perChannelScores ? "channel" : "token") + ", bias " + c.bias +
         ", temperature " + std::to_string(c.temperature) +
         (c.refine > 0
              ? ", a token tier (refine " + std::to_string(c.refine) + ")"
              : ", no token tier (refine 0)");
}

/// The header of the file open as `fd` of `size` bytes.
bool readHeader(int fd, std::uint64_t size, Header &h, std::string &why) {
  std::uint8_t bytes[kHeaderBytes] = {};
  const size_t have = size_t(std::min<std::uint64_t>(size, kHeaderBytes));
  if (::pread(fd, bytes, have, 0) != ssize_t(have)) {
    why = systemError("reading the header");
    return false;
  }
  if (have < 8 || std::memcmp(bytes, kMagic, 8) != 0) {
    why = "not an IndexPool cache snapshot";
    return false;
  }
  const std::uint32_t version = have >= 12 ? get32(bytes + kVersionAt) : 0;
  const size_t needed = version == 2 || version == 3 ? headerBytesOf(version)
                                                     : kHeaderBytes;
  if (have < needed) {
    why = "truncated (" + std::to_string(size) + " bytes)";
    return false;
  }
  why = decodeHeader(bytes, h);
  if (!why.empty())
    return false;
  if (size != h.headerBytes + h.bodyBytes) {
    why = "truncated or extended: " + std::to_string(size) + " bytes, the "
          "header says " + std::to_string(h.headerBytes + h.bodyBytes);
    return false;
  }
  return true;
}

/// Opens `path` and reads its header; fd >= 0 on success.
int openSnapshot(const std::string &path, Header &h, std::string &error) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused
  // below as not a regular file); reads of a regular file do not block.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = systemError(path);
    return -1;
  }
  struct stat st;
  std::string why;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path + ": not a regular file";
  } else if (!readHeader(fd, std::uint64_t(st.st_size), h, why)) {
    error = path + ": " + why;
  } else {
    return fd;
  }
  ::close(fd);
  return -1;
}

} // namespace

namespace {

// What a file is: a full snapshot or an increment over the previous file of
// its chain (the body starts with these three u64).
enum : std::uint64_t { kFull = 0, kIncrement = 1 };

/// Writes one snapshot file atomically: the state and the pages of
/// `store` (ids, ascending). `bodyHash` gets the body's XXH64.
bool writeFile(const PagedCache &cache, const std::string &path,
               std::uint64_t generation, std::uint64_t kind,
               std::uint64_t baseHash, std::uint64_t index,
               const std::set<PageIndex> &store, std::uint64_t &bodyHash,
               std::string &error) {
  const CacheConfig &c = cache.config();
  const SequenceTable &table = cache.sequences();
  const std::string temporary = path + ".tmp";
  // The rename below replaces whatever `path` is: only a regular file (or
  // nothing) may be there, never a FIFO or a device node.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    error = path + ": not a regular file (a snapshot replaces only a regular "
                   "file; nothing written)";
    return false;
  }
  // O_NONBLOCK | O_NOFOLLOW: a FIFO or a link left at the temporary's name
  // fails here instead of blocking or writing elsewhere.
  int fd = ::open(temporary.c_str(),
                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK |
                      O_NOFOLLOW,
                  0644);
  if (fd < 0) {
    error = systemError(temporary);
    return false;
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    error = temporary + ": not a regular file (nothing written)";
    return false;
  }
  auto fail = [&](const std::string &why) {
    ::close(fd);
    ::unlink(temporary.c_str());
    error = why + " (the previous snapshot, if any, is kept)";
    return false;
  };
  std::uint8_t header[kHeaderBytes] = {};
  if (::write(fd, header, kHeaderBytes) != ssize_t(kHeaderBytes))
    return fail(systemError("writing " + temporary));

  BodyWriter body(fd);
  body.u64(kind);
  body.u64(baseHash);
  body.u64(index);
  body.u64(c.biasValues.size());
  body.floats(c.biasValues);
  const std::vector<SequenceId> ids = table.liveIds();
  for (SequenceId id : ids) {
    const std::vector<PageIndex> &row = table.blockTable(id);
    body.u64(id);
    body.u64(std::uint64_t(table.length(id)));
    body.u64(row.size());
    for (PageIndex page : row)
      body.u32(std::uint32_t(page));
    for (std::int64_t l = 0; l < c.layers; ++l) {
      const auto *tail = cache.tail(id, l);
      std::uint8_t has = tail != nullptr;
      body.bytes(&has, 1);
      if (tail) {
        body.floats(tail->first);
        body.floats(tail->second);
      }
    }
  }
  const std::vector<std::int64_t> layerBytes = c.storedLayerBytes();
  std::vector<std::int8_t> bytes;
  for (PageIndex page : store) {
    body.u32(std::uint32_t(page));
    for (size_t l = 0; l < layerBytes.size(); ++l) {
      bytes.resize(size_t(layerBytes[l]));
      if (!cache.readPage(page, std::int64_t(l), bytes.data(), body.error))
        return fail(body.error);
      body.bytes(bytes.data(), bytes.size());
    }
  }
  body.flush();
  if (!body.ok)
    return fail(body.error);

  Header h;
  h.config = c;
  h.generation = generation;
  h.sequences = ids.size();
  h.storedPages = store.size();
  h.nextId = table.nextSequenceId();
  h.bodyBytes = body.written;
  h.bodyHash = bodyHash = body.hash();
  encodeHeader(h, header);
  if (::pwrite(fd, header, kHeaderBytes, 0) != ssize_t(kHeaderBytes))
    return fail(systemError("writing " + temporary));
  if (::fsync(fd) != 0)
    return fail(systemError("fsync of " + temporary));
  if (::close(fd) != 0) {
    ::unlink(temporary.c_str());
    error = systemError("closing " + temporary);
    return false;
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    error = systemError("renaming " + temporary + " to " + path);
    ::unlink(temporary.c_str());
    return false;
  }
  // The rename itself must reach the disk: fsync the directory.
  const size_t slash = path.find_last_of('/');
  const std::string directory =
      slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || ::fsync(dir) != 0) {
    error = systemError("fsync of the directory " + directory);
    if (dir >= 0)
      ::close(dir);
    return false;
  }
  ::close(dir);
  return true;
}

/// Every page a block table lists, once.
std::set<PageIndex> listedPages(const PagedCache &cache) {
  std::set<PageIndex> listed;
  for (SequenceId id : cache.sequences().liveIds()) {
    const auto &row = cache.sequences().blockTable(id);
    listed.insert(row.begin(), row.end());
  }
  return listed;
}

/// One file's contents.
struct Parsed {
  Header header;
  std::uint64_t kind = kFull, baseHash = 0, index = 0;
  std::vector<SequenceTable::Restored> sequences;
  std::vector<std::map<SequenceId, std::pair<std::vector<float>, std::vector<float>>>>
      tails;
  // Page id -> its bytes in every layer, one after the other.
  std::map<PageIndex, std::vector<std::uint8_t>> pages;
  std::vector<float> bias;
};

/// Reads and checks one snapshot file of `config`.
bool readFile(const std::string &path, const CacheConfig &config, Parsed &out,
              std::string &error) {
  Header &h = out.header;
  int fd = openSnapshot(path, h, error);
  if (fd < 0)
    return false;
  if (!sameConfig(h.config, config)) {
    ::close(fd);
    CacheConfig otherRefine = h.config;
    otherRefine.refine = config.refine;
    if (sameConfig(otherRefine, config))
      // The one difference: the token tier.
      error = path + ": a snapshot of another cache: refine " +
              std::to_string(h.config.refine) + " (" +
              (h.config.refine > 0 ? "a token tier" : "no token tier") +
              "), this one has refine " + std::to_string(config.refine);
    else
      error = path + ": a snapshot of another cache (" + describe(h.config) +
              "; this one has " + describe(config) + ")";
    return false;
  }
  std::vector<std::uint8_t> body;
  try {
    body.resize(size_t(h.bodyBytes));
  } catch (const std::exception &) {
    ::close(fd);
    error = path + ": a body of " + std::to_string(h.bodyBytes) +
            " bytes does not fit in memory";
    return false;
  }
  size_t done = 0;
  while (done < body.size()) {
    ssize_t n = ::pread(fd, body.data() + done, body.size() - done,
                        off_t(h.headerBytes + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ::close(fd);
      error = systemError(path);
      return false;
    }
    done += size_t(n);
  }
  ::close(fd);
  if (XXH64(body.data(), body.size(), 0) != h.bodyHash) {
    error = path + ": corrupt body (checksum mismatch)";
    return false;
  }
  auto bad = [&](const std::string &why) {
    error = path + ": inconsistent contents: " + why;
    return false;
  };
  BodyReader in(body);
  if (!in.u64(out.kind) || !in.u64(out.baseHash) || !in.u64(out.index) ||
      out.kind > kIncrement)
    return bad("the file's kind");
  std::uint64_t biasCount = 0;
  if (h.version >= 3 &&
      (!in.u64(biasCount) || biasCount != std::uint64_t(config.biasCount()) ||
       !in.floats(size_t(biasCount), out.bias)))
    return bad("the pooling bias");
  out.tails.assign(size_t(config.layers), {});
  const size_t tailKeys = size_t((config.poolSize - 1) * config.dim),
               tailScores = size_t((config.poolSize - 1) * config.scoreWidth());
  if (h.sequences > body.size() / 32)
    return bad("more sequences than the body can hold");
  for (std::uint64_t s = 0; s < h.sequences; ++s) {
    SequenceTable::Restored r;
    std::uint64_t id, length, size;
    if (!in.u64(id) || !in.u64(length) || !in.u64(size) ||
        size > config.totalPages() || size > body.size() / 4)
      return bad("sequence record " + std::to_string(s));
    r.id = id;
    r.length = std::int64_t(length);
    for (std::uint64_t i = 0; i < size; ++i) {
      std::uint32_t page;
      if (!in.u32(page))
        return bad("sequence record " + std::to_string(s));
      r.blockTable.push_back(PageIndex(page));
    }
    for (std::int64_t l = 0; l < config.layers; ++l) {
      const std::uint8_t *has;
      if (!in.take(1, has) || *has > 1)
        return bad("tail of sequence " + std::to_string(id));
      if (*has) {
        auto &tail = out.tails[size_t(l)][id];
        if (!in.floats(tailKeys, tail.first) ||
            !in.floats(tailScores, tail.second))
          return bad("tail of sequence " + std::to_string(id));
      }
    }
    out.sequences.push_back(std::move(r));
  }
  const size_t allLayers =
      size_t(pageBytesInAllLayers(config.storedLayerBytes()));
  for (std::uint64_t p = 0; p < h.storedPages; ++p) {
    std::uint32_t page;
    const std::uint8_t *bytes;
    if (!in.u32(page) || page >= config.totalPages() || out.pages.count(PageIndex(page)) ||
        !in.take(allLayers, bytes))
      return bad("page record " + std::to_string(p));
    out.pages[PageIndex(page)].assign(bytes, bytes + allLayers);
  }
  if (!in.done())
    return bad("bytes after the last page");
  return true;
}

bool fileExists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

} // namespace

bool indexpool::cache::writeSnapshot(const PagedCache &cache,
                                     const std::string &path,
                                     std::uint64_t generation,
                                     std::string &error) {
  std::uint64_t hash;
  return writeFile(cache, path, generation, kFull, 0, 0, listedPages(cache),
                   hash, error);
}

std::string indexpool::cache::incrementPath(const std::string &path,
                                            std::uint64_t index) {
  return path + ".inc." + std::to_string(index);
}

SnapshotWriter::SnapshotWriter(std::string path, unsigned maxIncrements)
    : path(std::move(path)), maxIncrements(maxIncrements) {}

bool SnapshotWriter::write(const PagedCache &cache, std::uint64_t generation,
                           std::string &error) {
  const CacheConfig &c = cache.config();
  // Each listed page's hash over every stored layer: what changed since
  // the last file of the chain.
  std::map<PageIndex, std::uint64_t> hashes;
  const std::vector<std::int64_t> layerBytes = c.storedLayerBytes();
  std::vector<std::int8_t> bytes;
  for (PageIndex page : listedPages(cache)) {
    XXH64_state_t *state = XXH64_createState();
    XXH64_reset(state, 0);
    for (size_t l = 0; l < layerBytes.size(); ++l) {
      bytes.resize(size_t(layerBytes[l]));
      if (!cache.readPage(page, std::int64_t(l), bytes.data(), error)) {
        XXH64_freeState(state);
        return false;
      }
      XXH64_update(state, bytes.data(), bytes.size());
    }
    hashes[page] = XXH64_digest(state);
    XXH64_freeState(state);
  }
  const bool full = !hasBase || increments >= maxIncrements;
  std::set<PageIndex> store;
  for (const auto &[page, hash] : hashes) {
    auto it = written.find(page);
    if (full || it == written.end() || it->second != hash)
      store.insert(page);
  }
  std::uint64_t bodyHash;
  const std::uint64_t index = full ? 0 : increments + 1;
  if (!writeFile(cache, full ? path : incrementPath(path, index), generation,
                 full ? kFull : kIncrement, full ? 0 : lastHash, index, store,
                 bodyHash, error))
    return false;
  if (full) {
    // Increments of the previous chain no longer match the new base (their
    // base hash differs): restore ignores them; remove them anyway.
    for (std::uint64_t i = 1; fileExists(incrementPath(path, i)); ++i) {
      // Only the chain's own files: never a FIFO or a device node.
      struct stat st;
      const std::string increment = incrementPath(path, i);
      if (::lstat(increment.c_str(), &st) == 0 && S_ISREG(st.st_mode))
        ::unlink(increment.c_str());
    }
    written.clear();
    increments = 0;
  } else {
    increments = index;
  }
  for (const auto &[page, hash] : hashes)
    written[page] = hash;
  lastHash = bodyHash;
  hasBase = true;
  lastStored = store.size();
  return true;
}

bool indexpool::cache::resealSnapshot(std::vector<std::uint8_t> &image) {
  if (image.size() < kHeaderBytes ||
      std::memcmp(image.data(), kMagic, 8) != 0 ||
      get32(image.data() + kVersionAt) != kVersion)
    return false;
  put64(image.data() + kBodyHashAt,
        XXH64(image.data() + kHeaderBytes, image.size() - kHeaderBytes, 0));
  put64(image.data() + kHeaderHashAt, XXH64(image.data(), kHeaderHashAt, 0));
  return true;
}

std::string indexpool::cache::verifyRestoreConfig(CacheConfig config) {
  // Stand-ins of the right count; a count no valid cache has (a hostile
  // header's D) is left to verify's own refusal, not allocated.
  if (config.biasValues.empty() && config.biasCount() > 0 &&
      config.biasCount() <= (std::int64_t(1) << 22))
    config.biasValues.assign(size_t(config.biasCount()), 0.0f);
  return config.verify();
}

bool indexpool::cache::readSnapshotHeader(const std::string &path,
                                          CacheConfig &config,
                                          std::uint64_t &generation,
                                          std::string &error) {
  Header h;
  int fd = openSnapshot(path, h, error);
  if (fd < 0)
    return false;
  ::close(fd);
  config = h.config;
  generation = h.generation;
  // The newest increment of the chain, if any, has the generation.
  std::uint64_t base = h.bodyHash;
  for (std::uint64_t i = 1; fileExists(incrementPath(path, i)); ++i) {
    Parsed inc;
    std::string why;
    if (!readFile(incrementPath(path, i), config, inc, why) ||
        inc.kind != kIncrement || inc.index != i || inc.baseHash != base)
      break;
    generation = inc.header.generation;
    base = inc.header.bodyHash;
  }
  return true;
}

std::unique_ptr<PagedCache>
indexpool::cache::restoreSnapshot(const std::string &path,
                                  const CacheConfig &config,
                                  std::unique_ptr<CacheKernels> kernels,
                                  std::uint64_t &generation,
                                  std::string &error,
                                  const MakePageStore &makeStore) {
  // Before anything is read or allocated from the file: the configuration
  // (the header's, for indexpool.Cache.restore) must fit this machine.
  if (std::string why = verifyRestoreConfig(config); !why.empty()) {
    error = path + ": " + why;
    return nullptr;
  }
  Parsed newest;
  if (!readFile(path, config, newest, error))
    return nullptr;
  if (newest.kind != kFull) {
    error = path + ": an increment, not the chain's full snapshot";
    return nullptr;
  }
  // Pages: the full snapshot's, then each increment's over them, while the
  // increments continue the chain (an older chain's left-overs do not).
  std::map<PageIndex, std::vector<std::uint8_t>> pages = std::move(newest.pages);
  std::uint64_t base = newest.header.bodyHash;
  for (std::uint64_t i = 1; fileExists(incrementPath(path, i)); ++i) {
    Parsed inc;
    if (!readFile(incrementPath(path, i), config, inc, error))
      return nullptr;
    if (inc.kind != kIncrement || inc.index != i || inc.baseHash != base)
      break;
    for (auto &[page, bytes] : inc.pages)
      pages[page] = std::move(bytes);
    base = inc.header.bodyHash;
    newest = std::move(inc);
  }
  PagedCache::State state;
  state.nextId = newest.header.nextId;
  state.sequences = std::move(newest.sequences);
  state.tails = std::move(newest.tails);
  const std::vector<std::int64_t> layerBytes = config.storedLayerBytes();
  state.pages.resize(layerBytes.size());
  try {
    for (size_t l = 0; l < layerBytes.size(); ++l) {
      const size_t total = size_t(config.totalPages());
      if (total != 0 && size_t(layerBytes[l]) > SIZE_MAX / total)
        throw std::bad_alloc();
      state.pages[l].assign(total * size_t(layerBytes[l]), 0);
    }
  } catch (const std::bad_alloc &) {
    error = path + ": the " + std::to_string(config.totalPages()) +
            " pages of every tier do not fit in memory";
    return nullptr;
  }
  std::set<PageIndex> listed;
  for (const auto &r : state.sequences)
    listed.insert(r.blockTable.begin(), r.blockTable.end());
  for (PageIndex page : listed) {
    auto it = pages.find(page);
    if (it == pages.end()) {
      error = path + ": inconsistent contents: page " + std::to_string(page) +
              " is listed but stored in no file of the chain";
      return nullptr;
    }
    size_t at = 0;
    for (size_t l = 0; l < layerBytes.size(); ++l) {
      const size_t size = size_t(layerBytes[l]);
      std::memcpy(&state.pages[l][size_t(page) * size], it->second.data() + at,
                  size);
      at += size;
    }
  }
  generation = newest.header.generation;
  CacheConfig restored = config;
  restored.biasValues = newest.bias;
  std::unique_ptr<PageStore> store;
  if (restored.storePages && makeStore && !(store = makeStore(restored, error))) {
    error = path + ": the store tier: " + error;
    return nullptr;
  }
  std::unique_ptr<PagedCache> cache = PagedCache::restore(
      restored, std::move(kernels), std::move(state), error, std::move(store));
  if (!cache)
    error = path + ": " + error;
  return cache;
}
