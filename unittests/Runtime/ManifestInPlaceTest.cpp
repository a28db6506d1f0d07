//===- ManifestInPlaceTest.cpp - outputs written in place of an input -----===//
//
// docs/manifest.md "Buffers": an output with `in_place_of` has no device
// memory of its own; the kernels update the input's (a paged op's page
// pool) and the runtime reads the output from there. What loading accepts
// and refuses, what bindSizes checks once sizes have values, and, with the
// fake driver, that the launcher allocates nothing for it and downloads it
// from the input's memory.
//
//===----------------------------------------------------------------------===//

#include "ManifestText.h"

#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/Launcher.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/ReferenceRun.h"

#include "gtest/gtest.h"

#include <string>

using namespace indexpool::runtime;
using indexpool::ref::HostTensor;

namespace {

/// test/Tools/Inputs/launch/inplace.json: compress_paged writes its new
/// entries into the pool it is given (buffer 2) and returns it (buffer 4).
constexpr const char *kCompress = R"({
  "format_version": 3, "chip": "sm_90", "function": "compress_into_pages",
  "binary": {"path": "fake.ptx", "format": "ptx"},
  "buffers": [
    {"id": 0, "role": "input", "index": 0, "type": "bf16", "shape": [64, 16]},
    {"id": 1, "role": "input", "index": 1, "type": "f32", "shape": [64]},
    {"id": 2, "role": "input", "index": 2, "type": "i8", "shape": [4, 160]},
    {"id": 3, "role": "input", "index": 3, "type": "i64", "shape": [16]},
    {"id": 4, "role": "output", "index": 0, "type": "i8", "shape": [4, 160], "in_place_of": 2}
  ],
  "kernels": [
    {"name": "compress_into_pages_kernel",
     "params": [{"kind": "buffer", "bytes": 2048}, {"kind": "buffer", "bytes": 256},
                {"kind": "buffer", "bytes": 640}, {"kind": "buffer", "bytes": 128},
                {"kind": "i64"}, {"kind": "i64"}]}
  ],
  "launches": [
    {"kernel": "compress_into_pages_kernel", "grid": [16, 1, 1], "block": [32, 1, 1],
     "params": [{"buffer": 0}, {"buffer": 1}, {"buffer": 2}, {"buffer": 3},
                {"i64": 64}, {"i64": 4}]}
  ],
  "computes": [
    {"op": "compress_paged", "operands": {"keys": 0, "scores": 1, "pages": 2, "slots": 3},
     "results": [4],
     "properties": {"pool_size": 4, "page_entries": 8, "codes": "i8"}}
  ]
})";

/// test/Tools/Inputs/launch/inplace-expand.json: expand [B, K] indices into
/// the [B2, K2] i32 input 1, which must be [B, 4K] once bound.
constexpr const char *kExpand = R"({
  "format_version": 3, "chip": "sm_80", "function": "expand_into",
  "binary": {"path": "fake.ptx", "format": "ptx"},
  "sizes": [
    {"op": "dim", "buffer": 0, "dim": 0},
    {"op": "dim", "buffer": 0, "dim": 1},
    {"op": "mul", "args": [{"size": 0}, {"size": 1}]},
    {"op": "mul", "args": [{"size": 1}, 4]},
    {"op": "ceildivu", "args": [{"size": 2}, 8]},
    {"op": "mul", "args": [{"size": 2}, 4]},
    {"op": "mul", "args": [{"size": 5}, 4]},
    {"op": "dim", "buffer": 1, "dim": 0},
    {"op": "dim", "buffer": 1, "dim": 1}
  ],
  "buffers": [
    {"id": 0, "role": "input", "index": 0, "type": "i32", "shape": [{"size": 0}, {"size": 1}]},
    {"id": 1, "role": "input", "index": 1, "type": "i32", "shape": [{"size": 7}, {"size": 8}]},
    {"id": 2, "role": "output", "index": 0, "type": "i32", "shape": [{"size": 0}, {"size": 3}], "in_place_of": 1}
  ],
  "kernels": [
    {"name": "indexpool_test_expand",
     "params": [{"kind": "buffer", "bytes": {"size": 5}}, {"kind": "buffer", "bytes": {"size": 6}},
                {"kind": "i64"}, {"kind": "i32"}]}
  ],
  "launches": [
    {"kernel": "indexpool_test_expand", "grid": [{"size": 4}, 1, 1], "block": [8, 1, 1],
     "params": [{"buffer": 0}, {"buffer": 1}, {"i64": {"size": 2}}, {"i32": 4}]}
  ],
  "computes": [
    {"op": "expand", "operands": {"indices": 0}, "results": [2],
     "properties": {"pool_size": 4}}
  ]
})";

using test::edited;
using test::load;
using test::loadError;

TEST(ManifestInPlaceTest, AnOutputInPlaceOfAnInputLoads) {
  Manifest m = load(kCompress);
  const Buffer *pages = m.findBuffer(2), *result = m.findBuffer(4);
  ASSERT_TRUE(pages && result);
  EXPECT_EQ(pages->inPlaceOf, -1);
  EXPECT_TRUE(pages->hasDeviceMemory());
  EXPECT_EQ(result->inPlaceOf, 2);
  EXPECT_FALSE(result->hasDeviceMemory());
  // Still the function's result: an output, the compute's result.
  ASSERT_EQ(m.outputs().size(), 1u);
  EXPECT_EQ(m.outputs()[0]->id, 4);
  EXPECT_EQ(m.definingCompute(4), &m.computes[0]);
  // Without the field, an output has memory of its own, as before.
  Manifest copy = load(edited(kCompress, ", \"in_place_of\": 2", ""));
  EXPECT_EQ(copy.findBuffer(4)->inPlaceOf, -1);
  EXPECT_TRUE(copy.findBuffer(4)->hasDeviceMemory());
}

TEST(ManifestInPlaceTest, EachMistakeIsOneLine) {
  // Only an output is in place of something.
  EXPECT_EQ(loadError(edited(kCompress, "\"shape\": [16]}",
                             "\"shape\": [16], \"in_place_of\": 2}")),
            "m.json:8:89: buffers[3].in_place_of: only an output can be in "
            "place of an input, buffer 3 is an input");
  // ... of an input.
  EXPECT_EQ(loadError(edited(kCompress, "\"in_place_of\": 2", "\"in_place_of\": 4")),
            "m.json:9:93: buffers[4].in_place_of: buffer 4 is an output, "
            "not an input");
  EXPECT_EQ(loadError(edited(kCompress, "\"in_place_of\": 2", "\"in_place_of\": 9")),
            "m.json:9:93: buffers[4].in_place_of: no input buffer has id 9");
  EXPECT_EQ(loadError(edited(kCompress, "\"in_place_of\": 2", "\"in_place_of\": -1")),
            "m.json:9:93: buffers[4].in_place_of: expected an integer in [0, "
            "9223372036854775807], got -1");
  // ... of its type and shape.
  EXPECT_EQ(loadError(edited(kCompress, "\"in_place_of\": 2", "\"in_place_of\": 1")),
            "m.json:9:93: buffers[4].in_place_of: output buffer 4 is "
            "tensor<4x160xi8>, but input buffer 1 is tensor<64xf32> (in place "
            "needs the same type and shape)");
  EXPECT_EQ(loadError(edited(kCompress, "\"shape\": [4, 160]}",
                             "\"shape\": [4, 150]}")),
            "m.json:9:93: buffers[4].in_place_of: output buffer 4 is "
            "tensor<4x160xi8>, but input buffer 2 is tensor<4x150xi8> (in "
            "place needs the same type and shape)");
  // One output per input.
  std::string twice = edited(
      kCompress, "\"in_place_of\": 2}",
      "\"in_place_of\": 2},\n    {\"id\": 5, \"role\": \"output\", "
      "\"index\": 1, \"type\": \"i8\", \"shape\": [4, 160], \"in_place_of\": 2}");
  EXPECT_EQ(loadError(twice),
            "m.json:10:93: buffers[5].in_place_of: input buffer 2 is already "
            "updated in place by buffers[4] (one output per input)");
  // A launch names the input, never the output that lives in it.
  EXPECT_EQ(loadError(edited(kCompress, "{\"buffer\": 2}, {\"buffer\": 3}",
                             "{\"buffer\": 4}, {\"buffer\": 3}")),
            "m.json:19:58: launches[0].params[2].buffer: buffer 4 is in place "
            "of input 2 (it has no device memory of its own: name buffer 2)");
}

TEST(ManifestInPlaceTest, BindingComparesTheShapes) {
  // Symbolic shapes that may turn out equal load; literals that differ
  // whatever the sizes do not.
  Manifest symbolic = load(kExpand);
  EXPECT_EQ(symbolic.findBuffer(2)->inPlaceOf, 1);
  EXPECT_EQ(loadError(edited(kExpand, "{\"size\": 3}]", "{\"size\": 3}, 2]")),
            "m.json:18:115: buffers[2].in_place_of: output buffer 2 is i32 "
            "[?, ?, 2], but input buffer 1 is i32 [?, ?] (in place needs the "
            "same type and shape)");

  Manifest bound;
  std::string error;
  ASSERT_TRUE(bindSizes(symbolic, {{3, 5}, {3, 20}}, 132, bound, error))
      << error;
  EXPECT_EQ(bound.findBuffer(2)->inPlaceOf, 1);
  EXPECT_FALSE(bound.findBuffer(2)->hasDeviceMemory());
  EXPECT_EQ(bound.findBuffer(2)->shape, (std::vector<int64_t>{3, 20}));
  EXPECT_FALSE(bindSizes(symbolic, {{3, 5}, {3, 21}}, 132, bound, error));
  EXPECT_EQ(error, "m.json:18:112: buffers[2].in_place_of: output buffer 2 "
                   "is tensor<3x20xi32>, but input buffer 1 is "
                   "tensor<3x21xi32> (in place needs the same type and "
                   "shape)");
}

#ifdef INDEXPOOL_FAKE_CUDA_PATH

/// The fake driver and kExpand bound to 4 rows of 6 indices.
class InPlaceLaunch : public ::testing::Test {
protected:
  void SetUp() override {
    device = CudaDevice::open(error, 0, INDEXPOOL_FAKE_CUDA_PATH);
    ASSERT_TRUE(device) << error;
    Manifest symbolic = load(kExpand);
    symbolic.directory = INDEXPOOL_TEST_INPUTS;
    ASSERT_TRUE(readBinary(symbolic, image, error)) << error;
    ASSERT_TRUE(bindSizes(symbolic, {{4, 6}, {4, 24}},
                          device->info().multiprocessorCount, bound, error))
        << error;
  }

  std::string error, image;
  std::unique_ptr<CudaDevice> device;
  Manifest bound;
};

TEST_F(InPlaceLaunch, TheLauncherWritesAndReadsTheInputsMemory) {
  std::unique_ptr<Launcher> launcher =
      Launcher::create(*device, bound, image, error);
  ASSERT_TRUE(launcher) << error;
  EXPECT_NE(launcher->pointerOf(1), 0u);
  EXPECT_EQ(launcher->pointerOf(2), launcher->pointerOf(1));
  // The output's bytes are the input's: counted once.
  EXPECT_EQ(launcher->inputOutputBytes(), (24 + 96) * 4);

  std::vector<HostTensor> inputs = generateRandomInputs(bound, 5);
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(launcher->upload(inputs, error)) << error;
  ASSERT_TRUE(launcher->run(error)) << error;
  ASSERT_TRUE(launcher->download(outputs, error)) << error;
  // The reference computes from the inputs as passed.
  ReferenceValues values;
  ASSERT_TRUE(runReference(bound, inputs, values, error)) << error;
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{4, 24}));
  EXPECT_EQ(outputs[0].data, values.at(2).data);
  EXPECT_NE(outputs[0].data, inputs[1].data);
}

TEST_F(InPlaceLaunch, TheLauncherChecksAManifestBuiltInCode) {
  for (Buffer &buffer : bound.buffers)
    if (buffer.id == 2)
      buffer.inPlaceOf = 0;
  EXPECT_FALSE(Launcher::create(*device, bound, image, error));
  EXPECT_EQ(error, "output buffer 2 (tensor<4x24xi32>) cannot be in place of "
                   "buffer 0 (input, tensor<4x6xi32>): only an output in "
                   "place of an input of its type and shape");
  // A launch that names the in-place output: refused before the driver.
  for (Buffer &buffer : bound.buffers)
    if (buffer.id == 2)
      buffer.inPlaceOf = 1;
  bound.launches[0].params[1].buffer = 2;
  EXPECT_FALSE(Launcher::create(*device, bound, image, error));
  EXPECT_EQ(error, "launches[0] (indexpool_test_expand): params[1]: buffer 2 "
                   "is in place of input 1 (it has no device memory of its "
                   "own: name buffer 1)");
}

#endif // INDEXPOOL_FAKE_CUDA_PATH

} // namespace
