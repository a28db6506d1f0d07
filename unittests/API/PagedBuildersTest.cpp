//===- PagedBuildersTest.cpp - the paged builders through the API ---------===//
//
// buildCompressPaged, buildSelectPaged and buildAppendPaged compiled for the
// CPU with the pages (and append's tails) updated in place, run on random
// inputs (never zeros) and checked against the float64 reference; a prefill
// followed by appends leaves the pages byte for byte as one compress_paged of
// the whole sequence does (docs/serving-layout.md).
//
//===----------------------------------------------------------------------===//

#include "indexpool/API/Builders.h"
#include "indexpool/API/Compiler.h"
#include "indexpool/API/Formats.h"
#include "indexpool/API/Reference.h"

#include <gtest/gtest.h>

#include <cstdint>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace indexpool;

namespace {

constexpr int64_t kDim = 64, kEntries = 16, kPool = 4;
constexpr int64_t kPageBytes = kEntries * (kDim + 4);

/// The bytes of a page of `codeType` codes: i4's are two a byte.
int64_t pageBytesOf(DType codeType) {
  return codeType == DType::I4 ? kEntries * (kDim / 2 + 4) : kPageBytes;
}

std::vector<float> randomFloats(size_t n, std::mt19937 &rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = normal(rng);
  return v;
}

/// Keys in their storage format: f32 values or bf16 bit patterns.
std::vector<uint8_t> randomKeys(size_t n, DType type, std::mt19937 &rng) {
  std::vector<float> values = randomFloats(n, rng);
  std::vector<uint8_t> bytes(n * dtypeBytes(type));
  if (type == DType::F32) {
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }
  for (size_t i = 0; i < n; ++i) {
    uint16_t bits = encodeBF16(values[i]);
    std::memcpy(&bytes[2 * i], &bits, 2);
  }
  return bytes;
}

/// Pages of random bytes, none zero: bytes no op writes must keep them.
std::vector<int8_t> randomPages(int64_t pages, std::mt19937 &rng,
                                DType codeType = DType::F8E4M3FN) {
  std::uniform_int_distribution<int> byte(1, 255);
  std::vector<int8_t> v(static_cast<size_t>(pages * pageBytesOf(codeType)));
  for (int8_t &b : v)
    b = int8_t(byte(rng));
  return v;
}

std::unique_ptr<CpuFunction> compile(const Module &module,
                                     const std::string &name,
                                     std::vector<int> inPlace) {
  CompileOptions options;
  options.threads = 2;
  options.inPlaceArguments = std::move(inPlace);
  Status status;
  std::unique_ptr<CpuFunction> function =
      compileForCpu(module, name, options, status);
  EXPECT_TRUE(function) << status.message();
  return function;
}

size_t bytesOf(const TensorRef &t) {
  size_t n = dtypeBytes(t.dtype);
  for (int64_t s : t.sizes())
    n *= size_t(s);
  return n;
}

/// Calls `function` with its results handed back, checks that result r is
/// argument updated[r] itself where updated[r] >= 0 (in place), then
/// compares the results with the reference on the arguments as they were
/// before the call (restored from a copy).
void callAndVerify(const Module &module, const std::string &name,
                   CpuFunction &function, std::vector<TensorRef> inputs,
                   const std::vector<int> &updated) {
  std::vector<std::vector<uint8_t>> before;
  for (const TensorRef &t : inputs) {
    const auto *data = static_cast<const uint8_t *>(t.data);
    before.emplace_back(data, data + bytesOf(t));
  }
  std::vector<TensorRef> results;
  Status status = function.call(inputs.data(), inputs.size(), results);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(results.size(), updated.size());
  std::vector<std::vector<uint8_t>> written;
  std::vector<TensorRef> outputs;
  for (size_t r = 0; r < results.size(); ++r) {
    if (updated[r] >= 0)
      EXPECT_EQ(results[r].data, inputs[updated[r]].data) << "result #" << r;
    const auto *data = static_cast<const uint8_t *>(results[r].data);
    written.emplace_back(data, data + bytesOf(results[r]));
  }
  for (size_t r = 0; r < results.size(); ++r)
    outputs.emplace_back(written[r].data(), results[r].dtype,
                         results[r].sizes());
  for (size_t i = 0; i < inputs.size(); ++i)
    std::memcpy(inputs[i].data, before[i].data(), before[i].size());
  std::vector<std::string> report;
  status = verifyAgainstReference(module, name, inputs.data(), inputs.size(),
                                  outputs.data(), outputs.size(), report);
  EXPECT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(report.size(), outputs.size());
  for (const std::string &line : report)
    EXPECT_NE(line.find("-> ok"), std::string::npos) << line;
  // An output that is the updated argument itself: the in-place call writes
  // the same bytes again (the arguments are back as they were).
  for (size_t r = 0; r < results.size(); ++r)
    if (updated[r] >= 0)
      outputs[r].data = inputs[updated[r]].data;
  status = function.call(inputs.data(), inputs.size(), outputs.data(),
                         outputs.size());
  ASSERT_TRUE(status.ok()) << status.message();
  for (size_t r = 0; r < results.size(); ++r)
    if (updated[r] >= 0)
      EXPECT_EQ(0, std::memcmp(inputs[updated[r]].data, written[r].data(),
                               written[r].size()))
          << "result #" << r;
}

struct CompressCase {
  DType keyType;
  bool perChannel;
  std::string bias;
  DType codeType;
  bool scalesFirst, rotate, pow2Scale;
};

TEST(PagedBuildersAPITest, CompressPagedMatchesTheReference) {
  for (const CompressCase &c :
       {CompressCase{DType::F32, false, "none", DType::F8E4M3FN, false, true,
                     false},
        CompressCase{DType::BF16, true, "channel", DType::I8, true, false,
                     true},
        CompressCase{DType::BF16, false, "slot", DType::F8E4M3FN, false, true,
                     true},
        CompressCase{DType::BF16, true, "channel", DType::I4, false, true,
                     false},
        CompressCase{DType::F32, false, "none", DType::I4, true, false,
                     true}}) {
    SCOPED_TRACE(std::string(dtypeName(c.keyType)) + " bias " + c.bias +
                 " codes " + dtypeName(c.codeType));
    CompressPagedSpec spec;
    spec.dim = kDim;
    spec.keyType = c.keyType;
    spec.perChannelScores = c.perChannel;
    spec.bias = c.bias;
    spec.rotate = c.rotate;
    spec.pow2Scale = c.pow2Scale;
    spec.temperature = 0.75f;
    spec.layout.pageEntries = kEntries;
    spec.layout.codeType = c.codeType;
    spec.layout.scalesFirst = c.scalesFirst;
    Status status;
    std::unique_ptr<Module> module = buildCompressPaged(spec, status);
    ASSERT_TRUE(module) << status.message();
    bool hasBias = c.bias != "none";
    int pagesIndex = hasBias ? 3 : 2;
    std::unique_ptr<CpuFunction> function =
        compile(*module, "compress_paged", {pagesIndex});
    ASSERT_TRUE(function);
    std::mt19937 rng(11);
    // One compiled function, two token counts (one not a multiple of P).
    for (int64_t tokens : {202, 320}) {
      int64_t groups = tokens / kPool, pages = 8;
      std::vector<uint8_t> keys = randomKeys(size_t(tokens * kDim), c.keyType,
                                             rng);
      std::vector<float> scores = randomFloats(
          size_t(c.perChannel ? tokens * kDim : tokens), rng);
      std::vector<float> bias = randomFloats(
          size_t(c.bias == "channel" ? kPool * kDim : kPool), rng);
      std::vector<int8_t> pageBytes = randomPages(pages, rng, c.codeType);
      // Distinct slots among the 128 of the pages; every fifth group masked.
      std::vector<int64_t> slots(static_cast<size_t>(pages * kEntries));
      std::iota(slots.begin(), slots.end(), 0);
      std::shuffle(slots.begin(), slots.end(), rng);
      slots.resize(size_t(groups));
      for (size_t g = 0; g < slots.size(); g += 5)
        slots[g] = -1;
      std::vector<TensorRef> inputs = {
          TensorRef(keys.data(), c.keyType, {tokens, kDim}),
          c.perChannel ? TensorRef(scores.data(), DType::F32, {tokens, kDim})
                       : TensorRef(scores.data(), DType::F32, {tokens})};
      if (hasBias)
        inputs.push_back(
            c.bias == "channel"
                ? TensorRef(bias.data(), DType::F32, {kPool, kDim})
                : TensorRef(bias.data(), DType::F32, {kPool}));
      inputs.push_back(TensorRef(pageBytes.data(), DType::I8,
                                 {pages, pageBytesOf(c.codeType)}));
      inputs.push_back(TensorRef(slots.data(), DType::I64, {groups}));
      callAndVerify(*module, "compress_paged", *function, inputs,
                    {pagesIndex});
    }
  }
}

/// Pages with every entry written by compress_paged (valid codes and
/// scales), for select_paged to read.
std::vector<int8_t> compressedPages(int64_t pages, DType codeType,
                                    bool scalesFirst, std::mt19937 &rng) {
  CompressPagedSpec spec;
  spec.dim = kDim;
  spec.keyType = DType::F32;
  spec.layout.pageEntries = kEntries;
  spec.layout.codeType = codeType;
  spec.layout.scalesFirst = scalesFirst;
  Status status;
  std::unique_ptr<Module> module = buildCompressPaged(spec, status);
  EXPECT_TRUE(module) << status.message();
  std::unique_ptr<CpuFunction> function =
      compile(*module, "compress_paged", {2});
  int64_t groups = pages * kEntries, tokens = groups * kPool;
  std::vector<uint8_t> keys = randomKeys(size_t(tokens * kDim), DType::F32,
                                         rng);
  std::vector<float> scores = randomFloats(size_t(tokens), rng);
  std::vector<int8_t> pageBytes = randomPages(pages, rng, codeType);
  std::vector<int64_t> slots(static_cast<size_t>(groups));
  std::iota(slots.begin(), slots.end(), 0);
  std::shuffle(slots.begin(), slots.end(), rng);
  TensorRef inputs[] = {
      TensorRef(keys.data(), DType::F32, {tokens, kDim}),
      TensorRef(scores.data(), DType::F32, {tokens}),
      TensorRef(pageBytes.data(), DType::I8, {pages, pageBytesOf(codeType)}),
      TensorRef(slots.data(), DType::I64, {groups})};
  std::vector<TensorRef> results;
  Status call = function->call(inputs, 4, results);
  EXPECT_TRUE(call.ok()) << call.message();
  return pageBytes;
}

TEST(PagedBuildersAPITest, SelectPagedMatchesTheReference) {
  struct Case {
    DType queryType, codeType;
    bool scalesFirst, rotate;
  };
  for (const Case &c : {Case{DType::F32, DType::F8E4M3FN, false, true},
                        Case{DType::BF16, DType::I8, true, false},
                        Case{DType::F32, DType::I4, false, true},
                        Case{DType::BF16, DType::I4, true, false}}) {
    SCOPED_TRACE(std::string(dtypeName(c.queryType)) + " over " +
                 dtypeName(c.codeType));
    SelectPagedSpec spec;
    spec.rows = 2;
    spec.heads = 4;
    spec.dim = kDim;
    spec.queryType = c.queryType;
    spec.k = 8;
    spec.rotate = c.rotate;
    spec.layout.pageEntries = kEntries;
    spec.layout.codeType = c.codeType;
    spec.layout.scalesFirst = c.scalesFirst;
    Status status;
    std::unique_ptr<Module> module = buildSelectPaged(spec, status);
    ASSERT_TRUE(module) << status.message();
    std::unique_ptr<CpuFunction> function =
        compile(*module, "select_paged", {});
    ASSERT_TRUE(function);
    std::mt19937 rng(12);
    int64_t pages = 8, batch = 3, maxPages = 4;
    std::vector<int8_t> pageBytes =
        compressedPages(pages, c.codeType, c.scalesFirst, rng);
    std::vector<uint8_t> query = randomKeys(
        size_t(batch * 2 * 4 * kDim), c.queryType, rng);
    std::vector<float> weights = randomFloats(size_t(batch * 2 * 4), rng);
    // Page ids in range (sequences may share pages); lengths up to the
    // table's 256 tokens, short ones with empty top-k slots and tails.
    std::uniform_int_distribution<int32_t> page(0, int32_t(pages - 1));
    std::vector<int32_t> table(static_cast<size_t>(batch * maxPages));
    for (int32_t &id : table)
      id = page(rng);
    std::vector<int32_t> lengths = {256, 203, 17, 30, 130, 131};
    std::vector<TensorRef> inputs = {
        TensorRef(query.data(), c.queryType, {batch, 2, 4, kDim}),
        TensorRef(weights.data(), DType::F32, {batch, 2, 4}),
        TensorRef(pageBytes.data(), DType::I8,
                  {pages, pageBytesOf(c.codeType)}),
        TensorRef(table.data(), DType::I32, {batch, maxPages}),
        TensorRef(lengths.data(), DType::I32, {batch, 2})};
    callAndVerify(*module, "select_paged", *function, inputs, {-1});
  }
}

TEST(PagedBuildersAPITest, AppendPagedMatchesTheReference) {
  for (const CompressCase &c :
       {CompressCase{DType::F32, false, "slot", DType::F8E4M3FN, false, true,
                     false},
        CompressCase{DType::BF16, true, "channel", DType::I8, true, true, true},
        CompressCase{DType::BF16, false, "slot", DType::I4, false, true,
                     true}}) {
    SCOPED_TRACE(std::string(dtypeName(c.keyType)) + " bias " + c.bias +
                 " codes " + dtypeName(c.codeType));
    AppendPagedSpec spec;
    spec.newTokens = 3;
    spec.dim = kDim;
    spec.keyType = c.keyType;
    spec.perChannelScores = c.perChannel;
    spec.bias = c.bias;
    spec.rotate = c.rotate;
    spec.pow2Scale = c.pow2Scale;
    spec.temperature = 1.5f;
    spec.layout.pageEntries = kEntries;
    spec.layout.codeType = c.codeType;
    spec.layout.scalesFirst = c.scalesFirst;
    Status status;
    std::unique_ptr<Module> module = buildAppendPaged(spec, status);
    ASSERT_TRUE(module) << status.message();
    // keys, scores, bias, tail_keys, tail_scores, lengths, pages, table.
    std::unique_ptr<CpuFunction> function =
        compile(*module, "append_paged", {6, 3, 4});
    ASSERT_TRUE(function);
    std::mt19937 rng(13);
    int64_t batch = 3, n = 3, maxPages = 4, pages = batch * maxPages;
    int64_t scoreRow = c.perChannel ? kDim : 1;
    std::vector<uint8_t> keys = randomKeys(size_t(batch * n * kDim),
                                           c.keyType, rng);
    std::vector<float> scores = randomFloats(size_t(batch * n * scoreRow), rng);
    std::vector<float> bias = randomFloats(
        size_t(c.bias == "channel" ? kPool * kDim : kPool), rng);
    std::vector<uint8_t> tailKeys = randomKeys(
        size_t(batch * (kPool - 1) * kDim), c.keyType, rng);
    std::vector<float> tailScores =
        randomFloats(size_t(batch * (kPool - 1) * scoreRow), rng);
    // Each sequence owns 4 of the 12 pages (256 tokens); the lengths leave
    // room for the 3 new tokens and end at every tail length.
    std::vector<int32_t> lengths = {0, 118, 253};
    std::vector<int8_t> pageBytes = randomPages(pages, rng, c.codeType);
    std::vector<int32_t> table(static_cast<size_t>(pages));
    std::iota(table.begin(), table.end(), 0);
    std::shuffle(table.begin(), table.end(), rng);
    auto rows = [&](int64_t r) {
      return c.perChannel ? std::vector<int64_t>{batch, r, kDim}
                          : std::vector<int64_t>{batch, r};
    };
    std::vector<TensorRef> inputs = {
        TensorRef(keys.data(), c.keyType, {batch, n, kDim}),
        TensorRef(scores.data(), DType::F32, rows(n)),
        c.bias == "channel" ? TensorRef(bias.data(), DType::F32, {kPool, kDim})
                            : TensorRef(bias.data(), DType::F32, {kPool}),
        TensorRef(tailKeys.data(), c.keyType, {batch, kPool - 1, kDim}),
        TensorRef(tailScores.data(), DType::F32, rows(kPool - 1)),
        TensorRef(lengths.data(), DType::I32, {batch}),
        TensorRef(pageBytes.data(), DType::I8,
                  {pages, pageBytesOf(c.codeType)}),
        TensorRef(table.data(), DType::I32, {batch, maxPages})};
    callAndVerify(*module, "append_paged", *function, inputs, {6, 3, 4});
  }
}

// The project's invariant on the compiled code: prefills by compress_paged,
// then appends of 1 to 5 tokens (tails and pages in place), leave the pages
// exactly as one compress_paged of each whole sequence does.
TEST(PagedBuildersAPITest, PrefillAndAppendsEqualOneCompressPaged) {
  CompressPagedSpec cspec;
  cspec.dim = kDim;
  cspec.pow2Scale = true;
  cspec.layout.pageEntries = kEntries;
  AppendPagedSpec aspec;
  aspec.newTokens = -1;
  aspec.dim = kDim;
  aspec.pow2Scale = true;
  aspec.layout.pageEntries = kEntries;
  Status status;
  std::unique_ptr<Module> cmod = buildCompressPaged(cspec, status);
  ASSERT_TRUE(cmod) << status.message();
  std::unique_ptr<Module> amod = buildAppendPaged(aspec, status);
  ASSERT_TRUE(amod) << status.message();
  std::unique_ptr<CpuFunction> compress = compile(*cmod, "compress_paged", {2});
  // keys, scores, tail_keys, tail_scores, lengths, pages, table.
  std::unique_ptr<CpuFunction> append =
      compile(*amod, "append_paged", {5, 2, 3});
  ASSERT_TRUE(compress && append);

  std::mt19937 rng(14);
  constexpr int64_t batch = 2, maxPages = 4, pages = 10;
  // Sequence 0 is the longer one: it ends alone.
  const int64_t prefill[batch] = {37, 64}, total[batch] = {250, 181};
  std::vector<uint8_t> keys[batch];
  std::vector<float> scores[batch];
  for (int b = 0; b < batch; ++b) {
    keys[b] = randomKeys(size_t(total[b] * kDim), DType::BF16, rng);
    scores[b] = randomFloats(size_t(total[b]), rng);
  }
  std::vector<int32_t> table(static_cast<size_t>(pages));
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), rng);
  table.resize(size_t(batch * maxPages));
  const std::vector<int8_t> initial = randomPages(pages, rng);

  // Compresses tokens [0, tokens) of sequence b into `pageBytes`.
  auto compressInto = [&](int b, int64_t tokens,
                          std::vector<int8_t> &pageBytes) {
    int64_t groups = tokens / kPool;
    std::vector<int64_t> slots(static_cast<size_t>(groups));
    for (int64_t g = 0; g < groups; ++g)
      slots[g] = int64_t(table[size_t(b * maxPages + g / kEntries)]) *
                     kEntries +
                 g % kEntries;
    TensorRef in[] = {TensorRef(keys[b].data(), DType::BF16, {tokens, kDim}),
                      TensorRef(scores[b].data(), DType::F32, {tokens}),
                      TensorRef(pageBytes.data(), DType::I8,
                                {pages, kPageBytes}),
                      TensorRef(slots.data(), DType::I64, {groups})};
    std::vector<TensorRef> results;
    Status call = compress->call(in, 4, results);
    ASSERT_TRUE(call.ok()) << call.message();
    EXPECT_EQ(results[0].data, pageBytes.data());
  };

  std::vector<int8_t> whole = initial;
  for (int b = 0; b < batch; ++b)
    compressInto(b, total[b], whole);

  std::vector<int8_t> served = initial;
  std::vector<uint16_t> tailKeys(size_t(batch * (kPool - 1) * kDim), 0x3f80);
  std::vector<float> tailScores(size_t(batch * (kPool - 1)), 0.5f);
  std::vector<int32_t> lengths(batch);
  for (int b = 0; b < batch; ++b) {
    compressInto(b, prefill[b], served);
    // The prefill's last tokens that fill no group are the tail.
    lengths[b] = int32_t(prefill[b]);
    int64_t first = prefill[b] / kPool * kPool;
    for (int64_t t = first; t < prefill[b]; ++t) {
      std::memcpy(&tailKeys[size_t((b * (kPool - 1) + t - first) * kDim)],
                  &keys[b][size_t(t * kDim * 2)], size_t(kDim * 2));
      tailScores[size_t(b * (kPool - 1) + t - first)] = scores[b][size_t(t)];
    }
  }
  // Steps of 1 to 5 new tokens for both sequences, then for the longer
  // one alone (batch 1: the first rows of the tails, lengths and table).
  std::uniform_int_distribution<int64_t> step(1, 5);
  for (int64_t sequences : {batch, int64_t(1)}) {
    while (true) {
      int64_t room = total[0] - lengths[0];
      for (int b = 1; b < sequences; ++b)
        room = std::min(room, total[b] - lengths[b]);
      if (room == 0)
        break;
      int64_t n = std::min(step(rng), room);
      std::vector<uint16_t> newKeys(static_cast<size_t>(sequences * n * kDim));
      std::vector<float> newScores(static_cast<size_t>(sequences * n));
      for (int b = 0; b < sequences; ++b)
        for (int64_t i = 0; i < n; ++i) {
          std::memcpy(&newKeys[size_t((b * n + i) * kDim)],
                      &keys[b][size_t((lengths[b] + i) * kDim * 2)],
                      size_t(kDim * 2));
          newScores[size_t(b * n + i)] = scores[b][size_t(lengths[b] + i)];
        }
      TensorRef in[] = {
          TensorRef(newKeys.data(), DType::BF16, {sequences, n, kDim}),
          TensorRef(newScores.data(), DType::F32, {sequences, n}),
          TensorRef(tailKeys.data(), DType::BF16,
                    {sequences, kPool - 1, kDim}),
          TensorRef(tailScores.data(), DType::F32, {sequences, kPool - 1}),
          TensorRef(lengths.data(), DType::I32, {sequences}),
          TensorRef(served.data(), DType::I8, {pages, kPageBytes}),
          TensorRef(table.data(), DType::I32, {sequences, maxPages})};
      // The results are the pages and tails themselves.
      TensorRef out[] = {in[5], in[2], in[3]};
      status = append->call(in, 7, out, 3);
      ASSERT_TRUE(status.ok()) << status.message();
      for (int b = 0; b < sequences; ++b)
        lengths[b] += int32_t(n);
    }
  }
  ASSERT_EQ(lengths[0], total[0]);
  ASSERT_EQ(lengths[1], total[1]);
  EXPECT_TRUE(served != initial);
  EXPECT_TRUE(served == whole) << "the pages differ from one compress_paged";
}

TEST(PagedBuildersAPITest, BadSpecsGiveAStatus) {
  Status status;
  CompressPagedSpec compress;
  compress.keyType = DType::I8;
  EXPECT_FALSE(buildCompressPaged(compress, status));
  EXPECT_EQ(status.message(), "keyType must be f32, f16 or bf16, got i8");
  compress = CompressPagedSpec();
  compress.layout.codeType = DType::BF16;
  EXPECT_FALSE(buildCompressPaged(compress, status));
  EXPECT_EQ(status.message(),
            "layout.codeType must be f8E4M3FN, i8, i4 or f4E2M1FN, got bf16");
  compress = CompressPagedSpec();
  compress.dim = 37;
  compress.rotate = false;
  compress.layout.codeType = DType::I4;
  EXPECT_FALSE(buildCompressPaged(compress, status));
  EXPECT_EQ(status.message(),
            "dim must be even for i4 codes (two a byte), got 37");
  compress = CompressPagedSpec();
  compress.layout.pageEntries = 0;
  EXPECT_FALSE(buildCompressPaged(compress, status));
  EXPECT_NE(status.message().find("pageEntries"), std::string::npos);
  compress = CompressPagedSpec();
  compress.bias = "token";
  EXPECT_FALSE(buildCompressPaged(compress, status));
  EXPECT_EQ(status.message(),
            "bias must be none, slot or channel, got 'token'");
  compress = CompressPagedSpec();
  compress.name = "a b";
  EXPECT_FALSE(buildCompressPaged(compress, status));
  EXPECT_NE(status.message().find("must be letters"), std::string::npos);
  // What only the verifier knows comes with its location: a rotation needs
  // a power-of-two D.
  compress = CompressPagedSpec();
  compress.dim = 48;
  EXPECT_FALSE(buildCompressPaged(compress, status));
  EXPECT_NE(status.message().find("<compress_paged>:"), std::string::npos)
      << status.message();

  SelectPagedSpec select;
  select.queryType = DType::I8;
  EXPECT_FALSE(buildSelectPaged(select, status));
  EXPECT_EQ(status.message(), "queryType must be f32, f16, bf16 or f8E4M3FN");
  select = SelectPagedSpec();
  select.k = 0;
  EXPECT_FALSE(buildSelectPaged(select, status));
  EXPECT_NE(status.message().find("k, poolSize >= 1"), std::string::npos);
  select = SelectPagedSpec();
  select.maxPages = 2; // 2 * 64 entries < k = 512
  EXPECT_FALSE(buildSelectPaged(select, status));
  EXPECT_NE(status.message().find("k must be at most max_pages * E"),
            std::string::npos)
      << status.message();

  // Sizes whose products overflow are refused before they are formed.
  select = SelectPagedSpec();
  select.k = INT64_MAX / 2;
  EXPECT_FALSE(buildSelectPaged(select, status));
  EXPECT_NE(status.message().find("more than 2^31 tokens"), std::string::npos)
      << status.message();
  select = SelectPagedSpec();
  select.dim = INT64_MAX - 1;
  EXPECT_FALSE(buildSelectPaged(select, status));
  EXPECT_NE(status.message().find("overflows int64"), std::string::npos)
      << status.message();
  SelectSpec plain;
  plain.k = int64_t(1) << 30;
  plain.poolSize = 4;
  EXPECT_FALSE(buildSelect(plain, status));
  EXPECT_EQ(status.message(), "k * poolSize = 1073741824 * 4 is more than "
                              "2^31 tokens (token indices are i32)");

  AppendPagedSpec append;
  append.newTokens = 0;
  EXPECT_FALSE(buildAppendPaged(append, status));
  EXPECT_NE(status.message().find("newTokens"), std::string::npos);
  append = AppendPagedSpec();
  append.bias = "slot";
  append.perChannelScores = true; // a [P] bias with [B, n, D] scores
  EXPECT_FALSE(buildAppendPaged(append, status));
  EXPECT_NE(status.message().find("bias"), std::string::npos)
      << status.message();
}

} // namespace
