//===- ManifestTest.cpp - loading and validating manifests ----------------===//
//
// The example of docs/manifest.md loads; every kind of mistake ends in one
// line that names the file, the place and the field.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Manifest.h"

#include "gtest/gtest.h"

#include <string>

using namespace indexpool::runtime;
using indexpool::ref::ElementType;

namespace {

/// docs/manifest.md's example, with the PTX of the tests as the binary.
constexpr const char *kValid = R"({
  "format_version": 2,
  "chip": "sm_90",
  "function": "compress_cache",
  "binary": {"path": "compress_cache.sm_90.cubin", "format": "cubin"},
  "buffers": [
    {"id": 0, "role": "input", "index": 0, "type": "bf16", "shape": [64, 128]},
    {"id": 1, "role": "input", "index": 1, "type": "f32", "shape": [64, 128]},
    {"id": 2, "role": "input", "index": 2, "type": "f32", "shape": [4, 128]},
    {"id": 3, "role": "output", "index": 0, "type": "f8E4M3FN", "shape": [16, 128]},
    {"id": 4, "role": "output", "index": 1, "type": "f32", "shape": [16]},
    {"id": 5, "role": "temporary", "type": "f32", "shape": [16, 4, 128]},
    {"id": 6, "role": "intermediate", "type": "bf16", "shape": [16, 128]},
    {"id": 7, "role": "intermediate", "type": "bf16", "shape": [16, 128]}
  ],
  "launches": [
    {"kernel": "compress_cache_kernel", "grid": [16, 1, 1], "block": [128, 1, 1],
     "shared_memory_bytes": 0,
     "params": [{"buffer": 0}, {"buffer": 1}, {"buffer": 2}, {"buffer": 3},
                {"buffer": 4}, {"buffer": 5}, {"i64": 64}, {"f32": 1.0}, {"i32": -3}]}
  ],
  "computes": [
    {"op": "pool", "operands": {"scores": 1, "keys": 0, "bias": 2}, "results": [6, 5],
     "properties": {"pool_size": 4, "temperature": 1.0}},
    {"op": "hadamard", "operands": {"input": 6}, "results": [7]},
    {"op": "quantize", "operands": {"input": 7}, "results": [3, 4],
     "properties": {"pow2_scale": true, "min_absmax": 1e-4}}
  ],
  "kernels": [
    {"name": "compress_cache_kernel",
     "params": [{"kind": "buffer", "bytes": 16384}, {"kind": "buffer", "bytes": 32768},
                {"kind": "buffer"}, {"kind": "buffer", "bytes": 2048},
                {"kind": "buffer", "bytes": 64}, {"kind": "buffer"},
                {"kind": "i64"}, {"kind": "f32"}, {"kind": "i32"}]}
  ]
})";

/// kValid with the first occurrence of `from` replaced by `to`.
std::string edited(const std::string &from, const std::string &to) {
  std::string text = kValid;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

/// The error of loading `text` as "m.json" ("" when it loads).
std::string errorOf(const std::string &text) {
  Manifest m;
  std::string error;
  return parseManifest(text, "m.json", "/dir", m, error) ? "" : error;
}

TEST(ManifestTest, TheDocumentedExampleLoads) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kValid, "m.json", "/dir", m, error)) << error;
  EXPECT_EQ(m.chip, "sm_90");
  EXPECT_EQ(m.function, "compress_cache");
  EXPECT_EQ(m.binaryFormat, BinaryFormat::Cubin);
  EXPECT_EQ(m.resolvedBinaryPath(), "/dir/compress_cache.sm_90.cubin");
  ASSERT_EQ(m.buffers.size(), 8u);
  ASSERT_EQ(m.inputs().size(), 3u);
  EXPECT_EQ(m.inputs()[1]->id, 1);
  ASSERT_EQ(m.outputs().size(), 2u);
  EXPECT_EQ(m.outputs()[0]->type, ElementType::F8E4M3FN);
  EXPECT_EQ(m.findBuffer(5)->role, BufferRole::Temporary);
  EXPECT_EQ(m.findBuffer(5)->sizeInBytes(), 16 * 4 * 128 * 4);
  EXPECT_FALSE(m.findBuffer(6)->hasDeviceMemory());
  ASSERT_EQ(m.launches.size(), 1u);
  const Launch &launch = m.launches[0];
  EXPECT_EQ(launch.kernel, "compress_cache_kernel");
  EXPECT_EQ(launch.grid[0], 16u);
  EXPECT_EQ(launch.block[0], 128u);
  ASSERT_EQ(launch.params.size(), 9u);
  EXPECT_EQ(launch.params[5].kind, LaunchParam::Kind::Buffer);
  EXPECT_EQ(launch.params[5].buffer, 5);
  EXPECT_EQ(launch.params[6].kind, LaunchParam::Kind::I64);
  EXPECT_EQ(launch.params[6].integer, 64);
  EXPECT_EQ(launch.params[7].f32, 1.0f);
  EXPECT_EQ(launch.params[8].integer, -3);
  ASSERT_EQ(m.computes.size(), 3u);
  // Operands in the op's order, whatever the file's order.
  EXPECT_EQ(m.computes[0].operands,
            (std::vector<std::pair<std::string, int64_t>>{
                {"keys", 0}, {"scores", 1}, {"bias", 2}}));
  EXPECT_EQ(m.computes[0].poolSize, 4);
  EXPECT_TRUE(m.computes[2].pow2Scale);
  EXPECT_EQ(m.computes[2].minAbsmax, double(1e-4f));
  EXPECT_EQ(m.computes[1].operand("input"), 6);
  EXPECT_EQ(m.computes[1].operand("keys"), -1);
  size_t index = 0;
  EXPECT_EQ(m.definingCompute(4, &index), &m.computes[2]);
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(m.definingCompute(0), nullptr);
  EXPECT_EQ(tensorTypeString({16, 128}, ElementType::F8E4M3FN),
            "tensor<16x128xf8E4M3FN>");
  EXPECT_EQ(tensorTypeString({}, ElementType::F32), "tensor<f32>");
}

TEST(ManifestTest, PointerAlignment) {
  Manifest m;
  std::string error;
  std::string text = edited("{\"kind\": \"buffer\", \"bytes\": 16384}",
                            "{\"kind\": \"buffer\", \"bytes\": 16384, "
                            "\"align\": 16}");
  ASSERT_TRUE(parseManifest(text, "m.json", "/dir", m, error)) << error;
  const Kernel &kernel = m.kernels[0];
  EXPECT_EQ(kernel.params[0].align, 16);
  EXPECT_EQ(kernel.params[1].align, 0); // not stated
  EXPECT_EQ(checkPointerAlignment(kernel, 0, 0x7f0000000010), "");
  EXPECT_EQ(checkPointerAlignment(kernel, 0, 0x7f0000000008),
            "kernel 'compress_cache_kernel' needs a 16-byte aligned pointer "
            "as parameter 0, got 0x7f0000000008");
  EXPECT_EQ(checkPointerAlignment(kernel, 1, 0x7f0000000001), "");
  EXPECT_EQ(errorOf(edited("{\"kind\": \"buffer\", \"bytes\": 16384}",
                           "{\"kind\": \"buffer\", \"align\": 12}")),
            "m.json:31:45: kernels[0].params[0].align: expected a power of "
            "two, got 12");
  EXPECT_EQ(errorOf(edited("{\"kind\": \"i64\"}",
                           "{\"kind\": \"i64\", \"align\": 8}")),
            "m.json:34:42: kernels[0].params[6].align: only buffer parameters "
            "have an alignment");
}

TEST(ManifestTest, EveryMistakeIsOneLineNamingTheField) {
  EXPECT_EQ(errorOf("{\"format_version\": 1,, }"),
            "m.json:1:22: expected a string key after ',', got character ','");
  EXPECT_EQ(errorOf("[]"), "m.json:1:1: expected an object, got an array");
  EXPECT_EQ(errorOf(edited("\"format_version\": 2", "\"format_version\": 4")),
            "m.json:2:21: format_version: unsupported format_version 4 (this "
            "runtime reads 2 and 3)");
  // Version 3 is version 2 with sizes known at launch (ManifestSizesTest).
  EXPECT_EQ(errorOf(edited("\"format_version\": 2", "\"format_version\": 3")),
            "");
  // Version 1 had no kernel signatures: its launches cannot be checked.
  EXPECT_EQ(errorOf(edited("\"format_version\": 2", "\"format_version\": 1")),
            "m.json:2:21: format_version: unsupported format_version 1 (this "
            "runtime reads 2 and 3; older manifests have no kernel signatures: "
            "recompile with indexpool-compile)");
  EXPECT_EQ(errorOf(edited("\"format_version\": 2,", "")),
            "m.json:1:1: missing field \"format_version\"");
  EXPECT_EQ(errorOf(edited("\"chip\"", "\"chips\"")),
            "m.json:3:12: chips: unknown field (expected format_version, "
            "chip, function, binary, sizes, buffers, values, kernels, launches "
            "or computes)");
  EXPECT_EQ(errorOf(edited("\"sm_90\"", "\"hopper\"")),
            "m.json:3:11: chip: expected a chip such as sm_80, sm_90 or "
            "sm_90a, got \"hopper\"");
  EXPECT_EQ(errorOf(edited("\"cubin\"}", "\"fatbin\"}")),
            "m.json:5:62: binary.format: expected \"cubin\" or \"ptx\", got "
            "\"fatbin\"");
  EXPECT_EQ(errorOf(edited("\"type\": \"bf16\"", "\"type\": \"f64\"")),
            "m.json:7:52: buffers[0].type: unknown element type \"f64\" "
            "(known: f32, f16, bf16, f8E4M3FN, i8, i32 or i64)");
  // A page code type is no tensor's element type.
  EXPECT_EQ(errorOf(edited("\"type\": \"bf16\"", "\"type\": \"i4\"")),
            "m.json:7:52: buffers[0].type: unknown element type \"i4\" "
            "(known: f32, f16, bf16, f8E4M3FN, i8, i32 or i64)");
  EXPECT_EQ(errorOf(edited("[64, 128]", "[64, -128]")),
            "m.json:7:74: buffers[0].shape[1]: expected an integer in [0, "
            "1099511627776], got -128");
  EXPECT_EQ(errorOf(edited("\"id\": 1,", "\"id\": 0,")),
            "m.json:8:12: buffers[1].id: id 0 is declared twice (also "
            "buffers[0])");
  EXPECT_EQ(errorOf(edited("\"role\": \"temporary\"", "\"role\": \"scratch\"")),
            "m.json:12:23: buffers[5].role: expected input, output, "
            "temporary or intermediate, got \"scratch\"");
  EXPECT_EQ(errorOf(edited("\"role\": \"temporary\"",
                           "\"role\": \"temporary\", \"index\": 0")),
            "m.json:12:45: buffers[5].index: only input and output buffers "
            "have an index");
  EXPECT_EQ(errorOf(edited("\"index\": 2", "\"index\": 3")),
            "m.json:9:41: buffers[2].index: the inputs' indices must be 0..2 "
            "(one each), got 3");
  EXPECT_EQ(errorOf(edited("\"index\": 1, \"type\": \"f32\", \"shape\": [16]",
                           "\"index\": 0, \"type\": \"f32\", \"shape\": [16]")),
            "m.json:11:42: buffers[4].index: output index 0 is used twice "
            "(also buffers[3])");
  EXPECT_EQ(errorOf(edited("\"grid\": [16, 1, 1]", "\"grid\": [16, 1]")),
            "m.json:17:49: launches[0].grid: expected an array of 3 sizes "
            "[x, y, z], got 2 elements");
  EXPECT_EQ(errorOf(edited("\"block\": [128, 1, 1]", "\"block\": [128, 8, 2]")),
            "m.json:17:70: launches[0].block: 2048 threads per block, more "
            "than the 1024 of every chip");
  EXPECT_EQ(errorOf(edited("{\"buffer\": 5}", "{\"buffer\": 9}")),
            "m.json:20:43: launches[0].params[5].buffer: no buffer has id 9");
  EXPECT_EQ(errorOf(edited("{\"buffer\": 5}", "{\"buffer\": 6}")),
            "m.json:20:43: launches[0].params[5].buffer: buffer 6 is an "
            "intermediate (it has no device memory)");
  EXPECT_EQ(errorOf(edited("{\"i32\": -3}", "{\"i32\": 3000000000}")),
            "m.json:20:82: launches[0].params[8].i32: expected an integer in "
            "[-2147483648, 2147483647], got 3000000000");
  EXPECT_EQ(errorOf(edited("{\"i64\": 64}", "{\"i64\": 64, \"f32\": 1}")),
            "m.json:20:47: launches[0].params[6]: expected exactly one of "
            "\"buffer\", \"i32\", \"i64\" or \"f32\", got 2");
  EXPECT_EQ(errorOf(edited("{\"f32\": 1.0}", "{\"f64\": 1.0}")),
            "m.json:20:68: launches[0].params[7].f64: unknown field (expected "
            "buffer, i32, i64 or f32)");
  EXPECT_EQ(errorOf(edited("{\"f32\": 1.0}", "{\"f32\": 1e39}")),
            "m.json:20:68: launches[0].params[7].f32: expected a number in "
            "the f32 range, got 1e+39");
}

TEST(ManifestTest, ComputesAreCheckedLikeTheIR) {
  EXPECT_EQ(errorOf(edited("\"op\": \"hadamard\"", "\"op\": \"rotate\"")),
            "m.json:25:12: computes[1].op: unknown op \"rotate\" (expected "
            "pool, hadamard, quantize, dequantize, residual, reconstruct, "
            "score, topk, expand, compress, select, refine, compress_paged, "
            "select_paged, append_paged or refine_paged)");
  EXPECT_EQ(errorOf(edited("\"scores\": 1, ", "")),
            "m.json:23:32: computes[0].operands: missing operand \"scores\" "
            "of pool");
  EXPECT_EQ(errorOf(edited("\"bias\": 2", "\"bias\": 2, \"valid\": 2")),
            "m.json:23:77: computes[0].operands.valid: unknown field "
            "(expected keys, scores or bias)");
  EXPECT_EQ(errorOf(edited("{\"input\": 6}", "{\"input\": 7}")),
            "m.json:25:46: computes[1].operands.input: buffer 7 has no value "
            "yet (neither an input nor the result of an earlier compute)");
  EXPECT_EQ(errorOf(edited("\"results\": [7]", "\"results\": [7, 8]")),
            "m.json:25:61: computes[1].results: hadamard has 1 result "
            "(result), got 2");
  EXPECT_EQ(errorOf(edited("\"results\": [7]", "\"results\": [6]")),
            "m.json:25:62: computes[1].results[0]: buffer 6 is already the "
            "result of computes[0]");
  EXPECT_EQ(errorOf(edited("\"results\": [7]", "\"results\": [1]")),
            "m.json:25:62: computes[1].results[0]: buffer 1 is an input (a "
            "compute cannot define it)");
  EXPECT_EQ(errorOf(edited("\"pool_size\": 4, ", "")),
            "m.json:24:20: computes[0].properties: missing property "
            "\"pool_size\" of pool");
  EXPECT_EQ(errorOf(edited("\"pool_size\": 4", "\"pool_size\": 3")),
            "m.json:23:5: computes[0] (pool): pool_size must be a power of "
            "two in [2, 64], got 3");
  EXPECT_EQ(errorOf(edited("\"pow2_scale\": true", "\"pow2_scale\": 1")),
            "m.json:27:35: computes[2].properties.pow2_scale: expected true or "
            "false, got 1");
  EXPECT_EQ(errorOf(edited("\"temperature\": 1.0", "\"k\": 1")),
            "m.json:24:42: computes[0].properties.k: unknown field (expected "
            "pool_size or temperature)");
  // Element types, shapes and relations, as the verifiers and the reference
  // check them.
  EXPECT_EQ(errorOf(edited("\"type\": \"bf16\", \"shape\": [16, 128]",
                           "\"type\": \"f16\", \"shape\": [16, 128]")),
            "m.json:23:5: computes[0] (pool): result 'pooled' must have "
            "element type f32 or the keys' type bf16, got f16");
  EXPECT_EQ(errorOf(edited("{\"id\": 2, \"role\": \"input\", \"index\": 2, "
                           "\"type\": \"f32\", \"shape\": [4, 128]}",
                           "{\"id\": 2, \"role\": \"input\", \"index\": 2, "
                           "\"type\": \"f32\", \"shape\": [4]}")),
            "m.json:23:5: computes[0] (pool): bias must be [P, D] "
            "(per-channel scores) = [4, 128], got [4]");
  EXPECT_EQ(errorOf(edited("\"shape\": [16, 4, 128]", "\"shape\": [16, 4]")),
            "m.json:23:84: computes[0].results[1]: buffer 5 is [16, 4], but "
            "result 'weights' of pool is [16, 4, 128]");
  EXPECT_EQ(errorOf(edited("\"type\": \"f8E4M3FN\"", "\"type\": \"f16\"")),
            "m.json:26:5: computes[2] (quantize): result 'codes' must have "
            "element type i8 or f8E4M3FN, got f16");
  // Outputs and intermediates must be computed.
  EXPECT_EQ(errorOf(edited("\"results\": [3, 4]", "\"results\": [3, 5]")),
            "m.json:26:65: computes[2].results[1]: buffer 5 is already the "
            "result of computes[0]");
}

TEST(ManifestTest, OutputsMustBeComputedWhenThereAreComputes) {
  std::string text = R"({"format_version": 2, "chip": "sm_80", "function": "f",
  "binary": {"path": "f.ptx", "format": "ptx"},
  "buffers": [{"id": 0, "role": "input", "index": 0, "type": "i32", "shape": [2, 3]},
              {"id": 1, "role": "output", "index": 0, "type": "i32", "shape": [2, 12]},
              {"id": 2, "role": "output", "index": 1, "type": "i32", "shape": [2]}],
  "launches": [],
  "computes": [{"op": "expand", "operands": {"indices": 0}, "results": [1],
                "properties": {"pool_size": 4}}]})";
  EXPECT_EQ(errorOf(text), "m.json:5:15: buffers[2]: output buffer 2 is not "
                           "the result of any compute");
  // Without computes a manifest may still be launched (not verified).
  std::string noComputes = text.substr(0, text.find(",\n  \"computes\"")) + "}";
  EXPECT_EQ(errorOf(noComputes), "");
}

TEST(ManifestTest, ValuesMayDeclareIntermediates) {
  // "values" (what indexpool-compile writes: every id's type and shape) is
  // the other way to declare intermediates; buffers must agree with it.
  std::string text = R"({"format_version": 2, "chip": "sm_80", "function": "f",
  "binary": {"path": "f.ptx", "format": "ptx"},
  "buffers": [{"id": 0, "role": "input", "index": 0, "type": "f32", "shape": [8, 4]},
              {"id": 2, "role": "output", "index": 0, "type": "f32", "shape": [8, 4]}],
  "values": [{"id": 0, "type": "f32", "shape": [8, 4]},
             {"id": 1, "type": "f32", "shape": [8, 4]},
             {"id": 2, "type": "f32", "shape": [8, 4]}],
  "launches": [],
  "computes": [{"op": "hadamard", "operands": {"input": 0}, "results": [1]},
               {"op": "hadamard", "operands": {"input": 1}, "results": [2]}]})";
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(text, "m.json", ".", m, error)) << error;
  ASSERT_NE(m.findBuffer(1), nullptr);
  EXPECT_EQ(m.findBuffer(1)->role, BufferRole::Intermediate);
  EXPECT_EQ(m.buffers.size(), 3u);
  std::string mismatch = text;
  const std::string f32 = "{\"id\": 2, \"type\": \"f32\"";
  mismatch.replace(mismatch.find(f32), f32.size(),
                   "{\"id\": 2, \"type\": \"f16\"");
  EXPECT_EQ(errorOf(mismatch), "m.json:7:14: values[2]: id 2 is "
                               "tensor<8x4xf16>, but buffers[1] is "
                               "tensor<8x4xf32>");
  std::string unused = text;
  unused.replace(unused.find("{\"id\": 1, \"type\""), 9, "{\"id\": 7,");
  EXPECT_EQ(errorOf(unused), "m.json:9:73: computes[0].results[0]: no buffer "
                             "has id 1");
}

// A launch is checked against its kernel's signature before anything runs:
// a driver reads as many parameters as the kernel takes, whatever the
// launch passes (too few crashed inside cuLaunchKernel).
TEST(ManifestTest, LaunchesMatchTheirKernelsSignature) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kValid, "m.json", "/dir", m, error)) << error;
  ASSERT_EQ(m.kernels.size(), 1u);
  ASSERT_EQ(m.findKernel("compress_cache_kernel"), &m.kernels[0]);
  ASSERT_EQ(m.kernels[0].params.size(), 9u);
  EXPECT_EQ(m.kernels[0].params[0].kind, LaunchParam::Kind::Buffer);
  EXPECT_EQ(m.kernels[0].params[0].bytes, 64 * 128 * 2);
  EXPECT_EQ(m.kernels[0].params[5].bytes, -1); // unknown
  EXPECT_EQ(m.kernels[0].params[7].kind, LaunchParam::Kind::F32);

  // Too few and too many parameters.
  EXPECT_EQ(errorOf(edited(", {\"i32\": -3}]}", "]}")),
            "m.json:19:16: launches[0].params: kernel 'compress_cache_kernel' "
            "takes 9 parameters, the launch passes 8");
  EXPECT_EQ(errorOf(edited("{\"i32\": -3}]}", "{\"i32\": -3}, {\"i32\": 0}]}")),
            "m.json:19:16: launches[0].params: kernel 'compress_cache_kernel' "
            "takes 9 parameters, the launch passes 10");
  // Another kind (the size differs: 4 bytes passed, 8 read).
  EXPECT_EQ(errorOf(edited("{\"i64\": 64}", "{\"i32\": 64}")),
            "m.json:20:47: launches[0].params[6]: kernel "
            "'compress_cache_kernel' takes an i64 (8 bytes) as parameter 6, "
            "the launch passes an i32 (4 bytes)");
  EXPECT_EQ(errorOf(edited("{\"buffer\": 4}", "{\"f32\": 4}")),
            "m.json:20:17: launches[0].params[4]: kernel "
            "'compress_cache_kernel' takes a buffer (8 bytes) as parameter 4, "
            "the launch passes a f32 (4 bytes)");
  // A buffer smaller than what the kernel accesses through it.
  EXPECT_EQ(errorOf(edited("{\"buffer\": 3}", "{\"buffer\": 4}")),
            "m.json:19:62: launches[0].params[3]: kernel "
            "'compress_cache_kernel' accesses 2048 bytes through parameter 3, "
            "but buffer 4 (tensor<16xf32>) has 64");
  // Larger is fine (a kernel may use part of a buffer).
  EXPECT_EQ(errorOf(edited("\"bytes\": 64}", "\"bytes\": 60}")), "");
  // A kernel without a signature, and signatures that are malformed.
  EXPECT_EQ(errorOf(edited("\"name\": \"compress_cache_kernel\"",
                           "\"name\": \"other_kernel\"")),
            "m.json:17:16: launches[0].kernel: kernel 'compress_cache_kernel' "
            "is not declared in \"kernels\" (its parameter signature is "
            "needed to check the launch)");
  EXPECT_EQ(errorOf(edited("{\"kind\": \"i64\"}", "{\"kind\": \"u64\"}")),
            "m.json:34:26: kernels[0].params[6].kind: expected \"buffer\", "
            "\"i32\", \"i64\" or \"f32\", got \"u64\"");
  EXPECT_EQ(errorOf(edited("{\"kind\": \"i64\"}",
                           "{\"kind\": \"i64\", \"bytes\": 8}")),
            "m.json:34:42: kernels[0].params[6].bytes: only buffer parameters "
            "have a size");
  EXPECT_EQ(errorOf(edited("\"bytes\": 64}", "\"bytes\": -1}")),
            "m.json:33:45: kernels[0].params[4].bytes: expected an integer in "
            "[0, 4398046511104], got -1");
  EXPECT_EQ(errorOf(edited("\"kernels\": [", "\"kernels\": [{\"name\": "
                           "\"compress_cache_kernel\", \"params\": []},")),
            "m.json:30:14: kernels[1].name: kernel 'compress_cache_kernel' is "
            "declared twice");
}

TEST(ManifestTest, FilesAndBinaries) {
  Manifest m;
  std::string error;
  EXPECT_FALSE(loadManifest("/no/such/m.json", m, error));
  EXPECT_EQ(error, "/no/such/m.json: cannot open: No such file or directory");
  ASSERT_TRUE(loadManifest(INDEXPOOL_TEST_INPUTS "/expand.json", m, error))
      << error;
  EXPECT_EQ(m.resolvedBinaryPath(), INDEXPOOL_TEST_INPUTS "/expand.ptx");
  std::string image;
  ASSERT_TRUE(readBinary(m, image, error)) << error;
  EXPECT_EQ(image.back(), '\0');
  EXPECT_NE(image.find(".entry indexpool_test_expand"), std::string::npos);
  // The documented example names a cubin that is not there.
  ASSERT_TRUE(loadManifest(INDEXPOOL_TEST_INPUTS "/compress.json", m, error))
      << error;
  EXPECT_FALSE(readBinary(m, image, error));
  EXPECT_EQ(error, "the binary of " INDEXPOOL_TEST_INPUTS
                   "/compress.json (binary.path "
                   "\"compress_cache.sm_90.cubin\"): " INDEXPOOL_TEST_INPUTS
                   "/compress_cache.sm_90.cubin: cannot open: No such file "
                   "or directory");
  // A PTX file that says it is a cubin.
  m.binaryPath = "expand.ptx";
  EXPECT_FALSE(readBinary(m, image, error));
  EXPECT_EQ(error, "the binary " INDEXPOOL_TEST_INPUTS
                   "/expand.ptx is not a cubin (no ELF header), but "
                   "binary.format says \"cubin\"");
}

} // namespace
