//===- APITest.cpp - the C++ embedding API, as a user calls it ------------===//
//
// Functions are built and compiled through include/indexpool/API only, run on
// the test's own buffers, and checked against the float64 reference (through
// the API) and, for pooling, against a float64 computation written here.
//
//===----------------------------------------------------------------------===//

#include "indexpool/API/Builders.h"
#include "indexpool/API/Compiler.h"
#include "indexpool/API/Formats.h"
#include "indexpool/API/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace indexpool;

namespace {

std::vector<float> randomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = normal(rng);
  return v;
}

std::unique_ptr<Module> compressModule(int64_t tokens, bool rotate) {
  CompressSpec spec;
  spec.tokens = tokens;
  spec.dim = 64;
  spec.keyType = DType::F32;
  spec.rotate = rotate;
  Status status;
  std::unique_ptr<Module> module = buildCompress(spec, status);
  EXPECT_TRUE(status.ok()) << status.message();
  return module;
}

TEST(APITest, CompressIntoCallerBuffersMatchesTheReference) {
  std::unique_ptr<Module> module = compressModule(-1, /*rotate=*/true);
  ASSERT_TRUE(module);
  Status status;
  std::unique_ptr<CpuFunction> compress =
      compileForCpu(*module, "compress", CompileOptions(), status);
  ASSERT_TRUE(compress) << status.message();
  // One compiled function, two sizes of the dynamic token count.
  for (int64_t tokens : {256, 1000}) {
    std::vector<float> keys = randomFloats(size_t(tokens) * 64, 1);
    std::vector<float> scores = randomFloats(size_t(tokens), 2);
    TensorRef inputs[] = {TensorRef(keys.data(), DType::F32, {tokens, 64}),
                          TensorRef(scores.data(), DType::F32, {tokens})};
    std::vector<std::vector<int64_t>> shapes;
    ASSERT_TRUE(compress->resultShapes(inputs, 2, shapes).ok());
    ASSERT_EQ(shapes.size(), 2u);
    EXPECT_EQ(shapes[0], (std::vector<int64_t>{tokens / 4, 64}));
    std::vector<uint8_t> codes(size_t(tokens / 4) * 64, 0xAA);
    std::vector<float> scales(size_t(tokens / 4), -1.0f);
    TensorRef outputs[] = {TensorRef(codes.data(), DType::F8E4M3FN, shapes[0]),
                           TensorRef(scales.data(), DType::F32, shapes[1])};
    status = compress->call(inputs, 2, outputs, 2);
    ASSERT_TRUE(status.ok()) << status.message();
    std::vector<std::string> report;
    status = verifyAgainstReference(*module, "compress", inputs, 2, outputs,
                                    2, report);
    EXPECT_TRUE(status.ok()) << status.message();
    ASSERT_EQ(report.size(), 2u);
    EXPECT_NE(report[0].find("-> ok"), std::string::npos) << report[0];
  }
}

// Pooling without rotation, checked with float64 arithmetic written here:
// weights = softmax of each group's 4 scores, pooled = their weighted sum,
// codes * scale within FP8's rounding of it.
TEST(APITest, HandedBackResultsMatchAnIndependentPooling) {
  std::unique_ptr<Module> module = compressModule(512, /*rotate=*/false);
  ASSERT_TRUE(module);
  Status status;
  std::unique_ptr<CpuFunction> compress =
      compileForCpu(*module, "compress", CompileOptions(), status);
  ASSERT_TRUE(compress) << status.message();
  std::vector<float> keys = randomFloats(512 * 64, 3);
  std::vector<float> scores = randomFloats(512, 4);
  TensorRef inputs[] = {TensorRef(keys.data(), DType::F32, {512, 64}),
                        TensorRef(scores.data(), DType::F32, {512})};
  std::vector<TensorRef> results;
  status = compress->call(inputs, 2, results);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(results.size(), 2u);
  ASSERT_EQ(results[0].sizes(), (std::vector<int64_t>{128, 64}));
  const auto *codes = static_cast<const uint8_t *>(results[0].data);
  const auto *scales = static_cast<const float *>(results[1].data);
  double worst = 0;
  for (int g = 0; g < 128; ++g) {
    double top = -INFINITY, sum = 0, w[4];
    for (int s = 0; s < 4; ++s)
      top = std::max(top, double(scores[g * 4 + s]));
    for (int s = 0; s < 4; ++s)
      sum += w[s] = std::exp(double(scores[g * 4 + s]) - top);
    double absmax = 0, pooled[64];
    for (int d = 0; d < 64; ++d) {
      pooled[d] = 0;
      for (int s = 0; s < 4; ++s)
        pooled[d] += w[s] / sum * keys[size_t(g * 4 + s) * 64 + d];
      absmax = std::max(absmax, std::fabs(pooled[d]));
    }
    for (int d = 0; d < 64; ++d) {
      double decoded = decodeF8E4M3FN(codes[g * 64 + d]) * double(scales[g]);
      // FP8 e4m3 has 3 mantissa bits: half a step is 2^-4 relative, and
      // the smallest codes are within 2^-9 * 448 of the row's scale.
      double allowed = std::fabs(pooled[d]) * 0.0625 + absmax * 1e-3;
      worst = std::max(worst, std::fabs(decoded - pooled[d]) / allowed);
    }
  }
  EXPECT_LE(worst, 1.0);
}

TEST(APITest, BadCallsGetOneMessage) {
  std::unique_ptr<Module> module = compressModule(-1, true);
  ASSERT_TRUE(module);
  Status status;
  std::unique_ptr<CpuFunction> compress =
      compileForCpu(*module, "compress", CompileOptions(), status);
  ASSERT_TRUE(compress);
  std::vector<float> keys(8 * 64, 1.0f), scores(8, 0.5f);
  std::vector<TensorRef> results;
  // Wrong element type.
  TensorRef badType[] = {TensorRef(keys.data(), DType::F16, {8, 64}),
                         TensorRef(scores.data(), DType::F32, {8})};
  status = compress->call(badType, 2, results);
  EXPECT_EQ(status.message(), "input #0 (keys) is f16, expected tensor<?x64xf32>");
  // A static size that differs.
  TensorRef badShape[] = {TensorRef(keys.data(), DType::F32, {8, 32}),
                          TensorRef(scores.data(), DType::F32, {8})};
  status = compress->call(badShape, 2, results);
  EXPECT_EQ(status.message(), "input #0 (keys) is [8, 32], expected tensor<?x64xf32>");
  // Sizes the op relates: scores [T] for keys [T, D].
  TensorRef mismatch[] = {TensorRef(keys.data(), DType::F32, {8, 64}),
                          TensorRef(scores.data(), DType::F32, {4})};
  status = compress->call(mismatch, 2, results);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("scores"), std::string::npos)
      << status.message();
  // Wrong number of inputs; a null pointer.
  status = compress->call(mismatch, 1, results);
  EXPECT_EQ(status.message(), "@compress takes 2 inputs, got 1");
  TensorRef null[] = {TensorRef(nullptr, DType::F32, {8, 64}),
                      TensorRef(scores.data(), DType::F32, {8})};
  status = compress->call(null, 2, results);
  EXPECT_EQ(status.message(), "input #0 (keys) has no data (a null pointer)");
  // An output of the wrong shape.
  TensorRef good[] = {TensorRef(keys.data(), DType::F32, {8, 64}),
                      TensorRef(scores.data(), DType::F32, {8})};
  std::vector<uint8_t> codes(64);
  std::vector<float> scales(2);
  TensorRef outputs[] = {TensorRef(codes.data(), DType::F8E4M3FN, {1, 64}),
                         TensorRef(scales.data(), DType::F32, {2})};
  status = compress->call(good, 2, outputs, 2);
  EXPECT_EQ(status.message(),
            "output #0 is [1, 64], expected tensor<2x64xf8E4M3FN>");
}

TEST(APITest, ParseErrorsCarryTheirLocation) {
  Status status;
  std::unique_ptr<Module> module =
      Module::parse("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  return %y : tensor<4xf32>\n}\n",
                    status, "bad.mlir");
  EXPECT_FALSE(module);
  EXPECT_NE(status.message().find("bad.mlir:2:"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("undeclared SSA value name"),
            std::string::npos)
      << status.message();
}

TEST(APITest, UnknownFunctionsAndChipsAreErrors) {
  std::unique_ptr<Module> module = compressModule(64, true);
  ASSERT_TRUE(module);
  Status status;
  EXPECT_FALSE(compileForCpu(*module, "nope", CompileOptions(), status));
  EXPECT_EQ(status.message(), "no function @nope in the module");
  GpuArtifact artifact;
  status = compileForGpu(*module, "compress", "sm_13", CompileOptions(),
                         artifact);
  EXPECT_NE(status.message().find("unknown chip 'sm_13'"), std::string::npos)
      << status.message();
}

TEST(APITest, SelectOverCompressedKeysMatchesTheReference) {
  CompressSpec cspec;
  cspec.dim = 64;
  cspec.keyType = DType::F32;
  SelectSpec sspec;
  sspec.heads = 4;
  sspec.dim = 64;
  sspec.queryType = DType::F32;
  sspec.k = 8;
  Status status;
  std::unique_ptr<Module> cmod = buildCompress(cspec, status);
  ASSERT_TRUE(cmod) << status.message();
  std::unique_ptr<Module> smod = buildSelect(sspec, status);
  ASSERT_TRUE(smod) << status.message();
  auto compress = compileForCpu(*cmod, "compress", CompileOptions(), status);
  ASSERT_TRUE(compress) << status.message();
  auto select = compileForCpu(*smod, "select", CompileOptions(), status);
  ASSERT_TRUE(select) << status.message();

  std::vector<float> keys = randomFloats(400 * 64, 5), scores =
                                                           randomFloats(400, 6);
  TensorRef cin[] = {TensorRef(keys.data(), DType::F32, {400, 64}),
                     TensorRef(scores.data(), DType::F32, {400})};
  std::vector<TensorRef> pooled;
  ASSERT_TRUE(compress->call(cin, 2, pooled).ok());
  std::vector<float> query = randomFloats(4 * 64, 7);
  std::vector<float> heads = randomFloats(4, 8);
  TensorRef sin[] = {TensorRef(query.data(), DType::F32, {1, 4, 64}),
                     TensorRef(heads.data(), DType::F32, {1, 4}), pooled[0],
                     pooled[1]};
  std::vector<int32_t> tokens(32, -7);
  TensorRef sout[] = {TensorRef(tokens.data(), DType::I32, {1, 32})};
  status = select->call(sin, 4, sout, 1);
  ASSERT_TRUE(status.ok()) << status.message();
  std::vector<std::string> report;
  status = verifyAgainstReference(*smod, "select", sin, 4, sout, 1, report);
  EXPECT_TRUE(status.ok()) << status.message();
  for (int32_t t : tokens)
    EXPECT_TRUE(t >= 0 && t < 400);
}

// A two-stage select whose sizes are known is refused when its first stage
// would keep more pools than there are, or its token keys miss some pool's
// tokens (refine would read them as padding and return -1s).
TEST(APITest, RefineSizesThatCannotHoldAreRefused) {
  SelectSpec spec;
  spec.heads = 4;
  spec.dim = 64;
  spec.k = 8;
  spec.refine = 4;
  spec.pools = 16;
  Status status;
  EXPECT_FALSE(buildSelect(spec, status));
  EXPECT_EQ(status.message(), "refine * k = 4 * 8 pools to keep, more than "
                              "pools = 16: lower refine or k");
  spec.pools = 40;
  spec.tokens = 159;
  EXPECT_FALSE(buildSelect(spec, status));
  EXPECT_EQ(status.message(), "tokens = 159 token keys, fewer than the tokens "
                              "of pools = 40 x P = 4: refine needs every "
                              "pool's token keys");
  spec.tokens = 160;
  EXPECT_TRUE(buildSelect(spec, status)) << status.message();
  spec.pools = spec.tokens = -1; // dynamic: the ops' rules at run time
  EXPECT_TRUE(buildSelect(spec, status)) << status.message();
}

} // namespace

namespace {

// A paged cache's pages updated in place: the result is the caller's own
// pages buffer, written where the slots say and nowhere else.
TEST(APITest, InPlaceArgumentsAreTheResultsMemory) {
  Status status;
  std::unique_ptr<Module> module = Module::parse(
      "func.func @fill(%keys: tensor<8x16xf32>, %scores: tensor<8xf32>,\n"
      "    %pages: tensor<3x40xi8>, %slots: tensor<2xi64>) -> tensor<3x40xi8> {\n"
      "  %p = indexpool.compress_paged %keys, %scores into %pages at %slots\n"
      "      {pool_size = 4 : i64, page_entries = 2 : i64}\n"
      "      : (tensor<8x16xf32>, tensor<8xf32>, tensor<3x40xi8>, tensor<2xi64>)\n"
      "        -> tensor<3x40xi8>\n"
      "  return %p : tensor<3x40xi8>\n}\n",
      status, "fill.mlir");
  ASSERT_TRUE(module) << status.message();
  CompileOptions options;
  options.inPlaceArguments = {2};
  std::unique_ptr<CpuFunction> fill =
      compileForCpu(*module, "fill", options, status);
  ASSERT_TRUE(fill) << status.message();

  std::vector<float> keys = randomFloats(8 * 16, 9), scores = randomFloats(8, 10);
  std::vector<int8_t> pages(3 * 40);
  for (size_t i = 0; i < pages.size(); ++i)
    pages[i] = int8_t(i * 7 + 3);
  std::vector<int8_t> before = pages;
  std::vector<int64_t> slots = {5, 0}; // page 2 entry 1, page 0 entry 0
  TensorRef in[] = {TensorRef(keys.data(), DType::F32, {8, 16}),
                    TensorRef(scores.data(), DType::F32, {8}),
                    TensorRef(pages.data(), DType::I8, {3, 40}),
                    TensorRef(slots.data(), DType::I64, {2})};
  std::vector<TensorRef> results;
  status = fill->call(in, 4, results);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].data, pages.data());
  // Page 1 holds no slot: unchanged; pages 0 and 2 were written.
  EXPECT_TRUE(std::equal(pages.begin() + 40, pages.begin() + 80,
                         before.begin() + 40));
  EXPECT_FALSE(std::equal(pages.begin(), pages.begin() + 40, before.begin()));
  EXPECT_FALSE(std::equal(pages.begin() + 80, pages.end(), before.begin() + 80));
  // The reference, on the pages as they were.
  std::vector<int8_t> written = pages;
  std::copy(before.begin(), before.end(), pages.begin());
  TensorRef out[] = {TensorRef(written.data(), DType::I8, {3, 40})};
  std::vector<std::string> report;
  status = verifyAgainstReference(*module, "fill", in, 4, out, 1, report);
  EXPECT_TRUE(status.ok()) << status.message();
  // An output that is the pages themselves: nothing more is written.
  status = fill->call(in, 4, out, 1);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(written, pages);
  TensorRef same[] = {TensorRef(pages.data(), DType::I8, {3, 40})};
  EXPECT_TRUE(fill->call(in, 4, same, 1).ok());
  EXPECT_EQ(written, pages);
  // A bad slot is reported, not written.
  slots[0] = 6;
  status = fill->call(in, 4, results);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("slot"), std::string::npos) << status.message();
}

} // namespace

// A function name that is no file name ("a/b") gives a binary name without
// '/', so that saveGpuArtifact writes inside its folder; a block size breaks
// the one rule with a message; keepModuleText returns the compiled module.
TEST(APITest, GpuArtifactNamesAndOptions) {
  Status status;
  std::unique_ptr<Module> module = Module::parse(
      "func.func @\"a/b\"(%k: tensor<16x64xf32>, %s: tensor<16xf32>)\n"
      "    -> tensor<4x64xf32> {\n"
      "  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64}\n"
      "      : (tensor<16x64xf32>, tensor<16xf32>)\n"
      "        -> (tensor<4x64xf32>, tensor<4x4xf32>)\n"
      "  return %p : tensor<4x64xf32>\n}\n",
      status, "names.mlir");
  ASSERT_TRUE(module) << status.message();
  GpuArtifact artifact;
  CompileOptions options;
  options.threadsPerBlock = 100;
  status = compileForGpu(*module, "a/b", "sm_90", options, artifact);
  EXPECT_EQ(status.message(),
            "threadsPerBlock must be a multiple of 32 in [32, 1024], got 100");
  options.threadsPerBlock = 128;
  options.tuningDB = "db.json";
  status = compileForGpu(*module, "a/b", "sm_90", options, artifact);
  EXPECT_NE(status.message().find("tuningDB and threadsPerBlock"),
            std::string::npos)
      << status.message();

  options.tuningDB.clear();
  options.keepModuleText = true;
  status = compileForGpu(*module, "a/b", "sm_90", options, artifact);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(artifact.binaryName, "a%2Fb.sm_90.ptx");
  EXPECT_EQ(artifact.binaryName.find('/'), std::string::npos);
  EXPECT_NE(artifact.manifest.find("\"path\": \"a%2Fb.sm_90.ptx\""),
            std::string::npos)
      << artifact.manifest;
  EXPECT_NE(artifact.moduleText.find("gpu.binary"), std::string::npos);
  options.keepModuleText = false;
  status = compileForGpu(*module, "a/b", "sm_90", options, artifact);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(artifact.moduleText.empty());

  // A name set by hand must stay a file name too.
  artifact.binaryName = "../a.sm_90.ptx";
  status = saveGpuArtifact(artifact, "unused");
  EXPECT_EQ(status.message(), "binaryName '../a.sm_90.ptx' is not a file name");
}
