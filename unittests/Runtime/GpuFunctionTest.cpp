//===- GpuFunctionTest.cpp - a GPU artifact on the caller's memory --------===//
//
// With the fake driver (test/FakeCuda): GpuFunction runs the manifests of
// test/Tools/Inputs/launch on device buffers the test allocates, on a stream
// it creates, and the results match the float64 reference on random inputs;
// temporaries are allocated once per set of input shapes; every check is
// one line.
//
//===----------------------------------------------------------------------===//

#include "ManifestText.h"

#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/GpuFunction.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/ReferenceRun.h"
#include "indexpool/Runtime/Storage.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#ifdef INDEXPOOL_FAKE_CUDA_PATH

using namespace indexpool;
using namespace indexpool::runtime;
using indexpool::ref::HostTensor;
using runtime::test::edited;

namespace {

std::string inputPath(const std::string &name) {
  return std::string(INDEXPOOL_TEST_INPUTS) + "/" + name;
}

std::string readText(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void *asData(CudaDevice::DevicePointer pointer) {
  return reinterpret_cast<void *>(uintptr_t(pointer));
}

class GpuFunctionTest : public ::testing::Test {
protected:
  void SetUp() override {
    device = CudaDevice::open(error, 0, INDEXPOOL_FAKE_CUDA_PATH);
    ASSERT_TRUE(device) << error;
    ASSERT_TRUE(device->createStream(stream, error)) << error;
  }
  void TearDown() override {
    for (CudaDevice::DevicePointer pointer : allocations)
      device->release(pointer);
    if (device)
      device->destroyStream(stream);
  }

  /// Device memory holding `t` in its storage format.
  TensorRef upload(const HostTensor &t) {
    std::vector<char> bytes = packTensor(t);
    CudaDevice::DevicePointer pointer = allocate(bytes.size());
    EXPECT_TRUE(device->copyToDevice(pointer, bytes.data(), bytes.size(),
                                     error))
        << error;
    return TensorRef(asData(pointer), dtypeOf(t.type), t.shape);
  }
  CudaDevice::DevicePointer allocate(size_t bytes) {
    CudaDevice::DevicePointer pointer = 0;
    EXPECT_TRUE(device->allocate(bytes, pointer, error)) << error;
    allocations.push_back(pointer);
    return pointer;
  }
  static DType dtypeOf(ref::ElementType type) {
    return type == ref::ElementType::I32 ? DType::I32 : DType::F32;
  }
  HostTensor download(const TensorRef &t, ref::ElementType type) {
    size_t elements = 1;
    for (int64_t size : t.sizes())
      elements *= size_t(size);
    std::vector<char> bytes(elements * dtypeBytes(t.dtype));
    EXPECT_TRUE(device->copyToHost(bytes.data(),
                                   CudaDevice::DevicePointer(
                                       reinterpret_cast<uintptr_t>(t.data)),
                                   bytes.size(), error))
        << error;
    return unpackTensor(bytes.data(), type, t.sizes());
  }

  /// Random inputs for `function` bound to `shapes`, and the reference's
  /// outputs (by output index).
  void reference(const GpuFunction &function,
                 const std::vector<std::vector<int64_t>> &shapes,
                 uint64_t seed, std::vector<HostTensor> &inputs,
                 std::vector<HostTensor> &outputs) {
    Manifest bound;
    ASSERT_TRUE(bindSizes(function.manifest(), shapes,
                          device->info().multiprocessorCount, bound, error))
        << error;
    inputs = generateRandomInputs(bound, seed);
    ReferenceValues values;
    ASSERT_TRUE(runReference(bound, inputs, values, error)) << error;
    outputs.clear();
    for (const Buffer *buffer : bound.outputs())
      outputs.push_back(values.at(buffer->id));
  }

  std::string error;
  std::unique_ptr<CudaDevice> device;
  CudaDevice::StreamHandle stream = nullptr;
  std::vector<CudaDevice::DevicePointer> allocations;
};

TEST_F(GpuFunctionTest, RunsOnTheCallersBuffersAndStream) {
  Status status;
  std::unique_ptr<GpuFunction> function =
      GpuFunction::load(*device, inputPath("expand-dynamic.json"), status);
  ASSERT_TRUE(function) << status.message();
  EXPECT_EQ(function->numInputs(), 1u);
  EXPECT_EQ(function->numOutputs(), 1u);
  EXPECT_EQ(function->inputType(0).dtype, DType::I32);
  EXPECT_EQ(function->inputType(0).shape, (std::vector<int64_t>{-1, -1}));
  EXPECT_EQ(function->outputType(0).shape, (std::vector<int64_t>{-1, -1}));

  // Two shapes through one function, then the first again.
  std::vector<std::vector<int64_t>> shapes{{3, 5}, {20, 8}, {3, 5}};
  for (size_t run = 0; run < shapes.size(); ++run) {
    std::vector<HostTensor> inputs, expected;
    reference(*function, {shapes[run]}, 11 + run, inputs, expected);
    TensorRef indices = upload(inputs[0]);

    std::vector<std::vector<int64_t>> outputShapes;
    ASSERT_TRUE(function->outputShapes(&indices, 1, outputShapes));
    ASSERT_EQ(outputShapes.size(), 1u);
    EXPECT_EQ(outputShapes[0],
              (std::vector<int64_t>{shapes[run][0], shapes[run][1] * 4}));
    TensorRef tokens(asData(allocate(size_t(shapes[run][0]) *
                                     size_t(shapes[run][1]) * 16)),
                     DType::I32, outputShapes[0]);

    status = function->launch({indices}, {tokens}, stream);
    ASSERT_TRUE(status) << status.message();
    ASSERT_TRUE(device->synchronizeStream(stream, error)) << error;
    HostTensor result = download(tokens, ref::ElementType::I32);
    EXPECT_EQ(result.data, expected[0].data) << "run " << run;
    // Random indices, not zeros: the comparison means something.
    EXPECT_NE(inputs[0].data, std::vector<double>(inputs[0].data.size()));
  }
}

TEST_F(GpuFunctionTest, FromMemoryRunsAnArtifact) {
  Status status;
  std::string binary = readText(inputPath("fake.ptx"));
  std::unique_ptr<GpuFunction> function = GpuFunction::fromMemory(
      *device, readText(inputPath("expand-dynamic.json")), binary,
      "artifact.json", status);
  ASSERT_TRUE(function) << status.message();
  std::vector<HostTensor> inputs, expected;
  reference(*function, {{4, 6}}, 3, inputs, expected);
  TensorRef indices = upload(inputs[0]);
  TensorRef tokens(asData(allocate(4 * 24 * 4)), DType::I32, {4, 24});
  // The default stream.
  status = function->launch({indices}, {tokens}, nullptr);
  ASSERT_TRUE(status) << status.message();
  ASSERT_TRUE(device->synchronize(error)) << error;
  EXPECT_EQ(download(tokens, ref::ElementType::I32).data, expected[0].data);

  // What readBinary refuses in a file is refused in memory.
  EXPECT_FALSE(GpuFunction::fromMemory(
      *device, readText(inputPath("expand-dynamic.json")), "", "a.json",
      status));
  EXPECT_EQ(status.message(), "the binary of a.json is empty");
  EXPECT_FALSE(GpuFunction::fromMemory(
      *device, readText(inputPath("expand-dynamic.json")),
      std::string("ab\0c", 4), "a.json", status));
  EXPECT_EQ(status.message(),
            "the binary of a.json is not PTX text (it holds NUL bytes), but "
            "binary.format says \"ptx\"");
  EXPECT_FALSE(GpuFunction::fromMemory(*device, "{", binary, "a.json",
                                       status));
  EXPECT_NE(status.message().find("a.json:"), std::string::npos)
      << status.message();
  EXPECT_FALSE(
      GpuFunction::load(*device, inputPath("no-such.json"), status));
  EXPECT_NE(status.message().find("no-such.json"), std::string::npos)
      << status.message();
}

TEST_F(GpuFunctionTest, AnOutputInPlaceOfAnInputIsTheInputsMemory) {
  Status status;
  std::unique_ptr<GpuFunction> function =
      GpuFunction::load(*device, inputPath("inplace-expand.json"), status);
  ASSERT_TRUE(function) << status.message();
  std::vector<HostTensor> inputs, expected;
  reference(*function, {{3, 5}, {3, 20}}, 7, inputs, expected);
  TensorRef indices = upload(inputs[0]), tokens = upload(inputs[1]);

  // Null data, or the input's pointer.
  for (void *data : {static_cast<void *>(nullptr), tokens.data}) {
    TensorRef result(data, DType::I32, {3, 20});
    status = function->launch({indices, tokens}, {result}, stream);
    ASSERT_TRUE(status) << status.message();
    ASSERT_TRUE(device->synchronizeStream(stream, error)) << error;
    EXPECT_EQ(download(tokens, ref::ElementType::I32).data, expected[0].data);
  }
  EXPECT_NE(inputs[1].data, expected[0].data);

  TensorRef elsewhere(asData(allocate(3 * 20 * 4)), DType::I32, {3, 20});
  status = function->launch({indices, tokens}, {elsewhere}, stream);
  EXPECT_EQ(status.message(), "output #0 is in place of input #1: its data "
                              "must be null or input #1's pointer");
}

/// The fake driver's log lines (INDEXPOOL_FAKE_CUDA_LOG) that `body` causes.
template <typename Body> std::string logOf(Body body) {
  ::testing::internal::CaptureStderr();
  body();
  return ::testing::internal::GetCapturedStderr();
}

size_t allocationsIn(const std::string &log) {
  size_t count = 0;
  for (size_t at = log.find("fake-cuda: alloc "); at != std::string::npos;
       at = log.find("fake-cuda: alloc ", at + 1))
    ++count;
  return count;
}

TEST_F(GpuFunctionTest, TemporariesAreAllocatedOncePerShapes) {
  // The fake driver reads the variable at its first log line: in a process
  // that ran another fake-driver test first (not under ctest, which runs
  // each test alone), it is too late.
  setenv("INDEXPOOL_FAKE_CUDA_LOG", "1", 1);
  std::string manifest = edited(
      readText(inputPath("expand-dynamic.json")),
      "\"shape\": [{\"size\": 0}, {\"size\": 3}]}",
      "\"shape\": [{\"size\": 0}, {\"size\": 3}]},\n"
      "    {\"id\": 2, \"role\": \"temporary\", \"type\": \"i32\", "
      "\"shape\": [{\"size\": 2}]}");
  Status status;
  std::unique_ptr<GpuFunction> function = GpuFunction::fromMemory(
      *device, manifest, readText(inputPath("fake.ptx")), "t.json", status);
  ASSERT_TRUE(function) << status.message();

  // The log of the launch alone; the test's own allocations, copies and
  // synchronizations are logged outside it (and dropped).
  auto run = [&](int64_t rows, int64_t k, uint64_t seed) {
    std::vector<HostTensor> inputs, expected;
    TensorRef indices, tokens;
    logOf([&] {
      reference(*function, {{rows, k}}, seed, inputs, expected);
      indices = upload(inputs[0]);
      tokens = TensorRef(asData(allocate(size_t(rows * k * 16))), DType::I32,
                         {rows, 4 * k});
    });
    std::string log = logOf([&] {
      status = function->launch({indices}, {tokens}, stream);
    });
    EXPECT_TRUE(status) << status.message();
    logOf([&] {
      EXPECT_TRUE(device->synchronizeStream(stream, error)) << error;
      EXPECT_EQ(download(tokens, ref::ElementType::I32).data,
                expected[0].data);
    });
    return log;
  };
  std::string first = run(3, 5, 1);
  if (first.find("fake-cuda: launch") == std::string::npos)
    GTEST_SKIP() << "the fake driver's log was off when this test started";
  // The temporary: 15 i32.
  EXPECT_EQ(allocationsIn(first), 1u) << first;
  EXPECT_NE(first.find("fake-cuda: alloc 60 bytes"), std::string::npos)
      << first;
  // The same shapes, other data: nothing allocated.
  std::string again = run(3, 5, 2);
  EXPECT_EQ(allocationsIn(again), 0u) << again;
  EXPECT_NE(again.find("fake-cuda: launch"), std::string::npos) << again;
  // New shapes: their temporary.
  std::string other = run(20, 8, 3);
  EXPECT_EQ(allocationsIn(other), 1u) << other;
  EXPECT_NE(other.find("fake-cuda: alloc 640 bytes"), std::string::npos)
      << other;
  EXPECT_EQ(allocationsIn(run(20, 8, 4)), 0u);
  // Every launch went on the caller's stream, none synchronized it.
  EXPECT_EQ(again.find("stream=default"), std::string::npos) << again;
  EXPECT_EQ(again.find("synchronize"), std::string::npos) << again;
}

TEST_F(GpuFunctionTest, EachMistakeIsOneLine) {
  Status status;
  std::unique_ptr<GpuFunction> function =
      GpuFunction::load(*device, inputPath("inplace-expand.json"), status);
  ASSERT_TRUE(function) << status.message();
  CudaDevice::DevicePointer memory = allocate(4096);
  TensorRef indices(asData(memory), DType::I32, {3, 5});
  TensorRef tokens(asData(memory + 256), DType::I32, {3, 20});
  TensorRef result(nullptr, DType::I32, {3, 20});
  auto launch = [&](std::vector<TensorRef> in, std::vector<TensorRef> out) {
    return function->launch(in, out, stream).message();
  };
  ASSERT_EQ(launch({indices, tokens}, {result}), "");

  // Counts.
  EXPECT_EQ(launch({indices}, {result}),
            "@expand_into takes 2 inputs, got 1");
  EXPECT_EQ(launch({indices, tokens}, {}),
            "@expand_into has 1 output, got 0");
  // Element types.
  TensorRef floats = indices;
  floats.dtype = DType::F32;
  EXPECT_EQ(launch({floats, tokens}, {result}),
            "input #0 is f32, expected tensor<?x?xi32>");
  TensorRef floatResult = result;
  floatResult.dtype = DType::F32;
  EXPECT_EQ(launch({indices, tokens}, {floatResult}),
            "output #0 is f32, expected tensor<3x20xi32>");
  // Shapes: the inputs' against the manifest, the outputs' against the
  // bound sizes.
  TensorRef flat(asData(memory), DType::I32, {15});
  EXPECT_EQ(launch({flat, tokens}, {result}),
            "input #0 is [15], but input #0 of " +
                inputPath("inplace-expand.json") + " has shape [?, ?]");
  TensorRef wide(asData(memory + 256), DType::I32, {3, 21});
  EXPECT_NE(launch({indices, wide}, {result}).find("in_place_of"),
            std::string::npos);
  TensorRef small(nullptr, DType::I32, {3, 5});
  EXPECT_EQ(launch({indices, tokens}, {small}),
            "output #0 is [3, 5], expected tensor<3x20xi32>");
  TensorRef deep = indices;
  deep.rank = 9;
  EXPECT_EQ(launch({deep, tokens}, {result}),
            "input #0 has rank 9 (at most 8)");
  // Pointers.
  TensorRef noData(nullptr, DType::I32, {3, 5});
  EXPECT_EQ(launch({noData, tokens}, {result}),
            "input #0 has no data (a null pointer)");
  EXPECT_EQ(launch({indices, tokens}, {TensorRef(asData(memory), DType::I32,
                                                 {3, 20})}),
            "output #0 is in place of input #1: its data must be null or "
            "input #1's pointer");

  // An output of its own, and a kernel that needs 16-byte alignment.
  std::string aligned =
      edited(readText(inputPath("expand-dynamic.json")),
             "{\"kind\": \"buffer\", \"bytes\": {\"size\": 5}}",
             "{\"kind\": \"buffer\", \"bytes\": {\"size\": 5}, \"align\": 16}");
  std::unique_ptr<GpuFunction> expand = GpuFunction::fromMemory(
      *device, aligned, readText(inputPath("fake.ptx")), "a.json", status);
  ASSERT_TRUE(expand) << status.message();
  TensorRef out(nullptr, DType::I32, {3, 20});
  EXPECT_EQ(expand->launch({indices}, {out}, stream).message(),
            "output #0 has no data (a null pointer)");
  out.data = asData(memory + 512);
  ASSERT_TRUE(expand->launch({indices}, {out}, stream));
  TensorRef misaligned(asData(memory + 4), DType::I32, {3, 5});
  EXPECT_EQ(expand->launch({misaligned}, {out}, stream).message(),
            "input #0: kernel 'indexpool_test_expand' needs a 16-byte "
            "aligned pointer as parameter 0, got 0x" +
                [&] {
                  char text[32];
                  std::snprintf(text, sizeof(text), "%llx",
                                (unsigned long long)(memory + 4));
                  return std::string(text);
                }());
  // Empty tensors need no data.
  TensorRef none(nullptr, DType::I32, {0, 5}), noneOut(nullptr, DType::I32,
                                                       {0, 20});
  EXPECT_TRUE(expand->launch({none}, {noneOut}, stream));
  // And the function still runs after each refusal.
  ASSERT_TRUE(device->synchronizeStream(stream, error)) << error;
  EXPECT_TRUE(expand->launch({indices}, {out}, stream));
}

TEST_F(GpuFunctionTest, ABinaryForAnotherChipDoesNotLoad) {
  Status status;
  std::string manifest = edited(readText(inputPath("expand-dynamic.json")),
                                "\"sm_80\"", "\"sm_100\"");
  EXPECT_FALSE(GpuFunction::fromMemory(
      *device, manifest, readText(inputPath("fake.ptx")), "a.json", status));
  EXPECT_EQ(status.message().find("the binary is PTX for sm_100"), 0u)
      << status.message();
}

} // namespace

#endif // INDEXPOOL_FAKE_CUDA_PATH
