//===- GpuGraphTest.cpp - GPU function calls captured into a CUDA graph ---===//
//
// With the fake driver (test/FakeCuda), which records the work issued to a
// capturing stream and runs it at cuGraphLaunch, and refuses what a real
// driver refuses during a capture: a step of two functions shaped like a
// decode step (inplace-expand.json writes its second input in place, as
// append_paged writes the pages; expand-twice.json runs two kernels through
// a temporary, as select_paged does) is captured once and replayed. The
// replay matches the direct call and the float64 reference on fresh random
// inputs, replays read new contents at the same addresses, temporaries
// outlive new shapes while a graph holds them, and everything that cannot
// be captured fails with one line and leaves the stream usable.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/GpuFunction.h"
#include "indexpool/Runtime/GpuGraph.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/ReferenceRun.h"
#include "indexpool/Runtime/Storage.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <sstream>
#include <string>

#ifdef INDEXPOOL_FAKE_CUDA_PATH

using namespace indexpool;
using namespace indexpool::runtime;
using indexpool::ref::HostTensor;

namespace {

std::string inputPath(const std::string &name) {
  return std::string(INDEXPOOL_TEST_INPUTS) + "/" + name;
}

void *asData(CudaDevice::DevicePointer pointer) {
  return reinterpret_cast<void *>(uintptr_t(pointer));
}

CudaDevice::DevicePointer asPointer(const void *data) {
  return CudaDevice::DevicePointer(reinterpret_cast<uintptr_t>(data));
}

/// The fake driver's log lines (INDEXPOOL_FAKE_CUDA_LOG) that `body` causes.
template <typename Body> std::string logOf(Body body) {
  ::testing::internal::CaptureStderr();
  body();
  return ::testing::internal::GetCapturedStderr();
}

/// The lines of `log` that start with "fake-cuda: " + `what`.
std::vector<std::string> linesOf(const std::string &log,
                                 const std::string &what) {
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("fake-cuda: " + what, 0) == 0)
      lines.push_back(line);
  return lines;
}

class GpuGraphTest : public ::testing::Test {
protected:
  void SetUp() override {
    // Read by the fake at its first log line: too late in a process that
    // ran another fake-driver test first (ctest runs each test alone);
    // the log's checks are skipped then, the results' never.
    setenv("INDEXPOOL_FAKE_CUDA_LOG", "1", 1);
    device = CudaDevice::open(error, 0, INDEXPOOL_FAKE_CUDA_PATH);
    ASSERT_TRUE(device) << error;
    ASSERT_TRUE(device->supportsGraphs());
    ASSERT_TRUE(device->createStream(stream, error)) << error;
    Status status;
    append = GpuFunction::load(*device, inputPath("inplace-expand.json"),
                               status);
    ASSERT_TRUE(append) << status.message();
    select = GpuFunction::load(*device, inputPath("expand-twice.json"), status);
    ASSERT_TRUE(select) << status.message();
    logging = logOf([&] {
                CudaDevice::DevicePointer probe = allocate(4);
                (void)probe;
              }).find("fake-cuda: alloc") != std::string::npos;
  }
  void TearDown() override {
    graph.reset();
    append.reset();
    select.reset();
    for (CudaDevice::DevicePointer pointer : allocations)
      device->release(pointer);
    if (device)
      device->destroyStream(stream);
  }

  CudaDevice::DevicePointer allocate(size_t bytes) {
    CudaDevice::DevicePointer pointer = 0;
    EXPECT_TRUE(device->allocate(bytes, pointer, error)) << error;
    allocations.push_back(pointer);
    return pointer;
  }
  /// Writes `t` (its storage format) at `ref`'s address.
  void write(const TensorRef &ref, const HostTensor &t) {
    std::vector<char> bytes = packTensor(t);
    ASSERT_TRUE(device->copyToDevice(asPointer(ref.data), bytes.data(),
                                     bytes.size(), error))
        << error;
  }
  HostTensor read(const TensorRef &t) {
    size_t elements = 1;
    for (int64_t size : t.sizes())
      elements *= size_t(size);
    std::vector<char> bytes(elements * 4);
    EXPECT_TRUE(device->synchronizeStream(stream, error)) << error;
    EXPECT_TRUE(device->copyToHost(bytes.data(), asPointer(t.data),
                                   bytes.size(), error))
        << error;
    return unpackTensor(bytes.data(), ref::ElementType::I32, t.sizes());
  }
  /// i32 device memory of `shape`, zeroed.
  TensorRef zeros(std::vector<int64_t> shape) {
    size_t elements = 1;
    for (int64_t size : shape)
      elements *= size_t(size);
    CudaDevice::DevicePointer pointer = allocate(elements * 4);
    EXPECT_TRUE(device->fillZero(pointer, elements * 4, error)) << error;
    return TensorRef(asData(pointer), DType::I32, shape);
  }

  /// Random inputs of `function` for `shapes` and the reference's outputs.
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

  /// The step's operands at fixed addresses, for rows x k indices.
  struct Step {
    TensorRef appendIndices, pages, selectIndices, tokens;
    std::vector<HostTensor> appendExpected, selectExpected;
  };
  Step makeStep(int64_t rows, int64_t k) {
    Step step;
    step.appendIndices = zeros({rows, k});
    step.pages = zeros({rows, 4 * k});
    step.selectIndices = zeros({rows, k});
    step.tokens = zeros({rows, 16 * k});
    return step;
  }
  /// Fresh random contents for `step` (seed), written where they are, and
  /// the reference's results for them.
  void fill(Step &step, uint64_t seed) {
    std::vector<HostTensor> inputs;
    int64_t rows = step.appendIndices.shape[0],
            k = step.appendIndices.shape[1];
    reference(*append, {{rows, k}, {rows, 4 * k}}, seed, inputs,
              step.appendExpected);
    write(step.appendIndices, inputs[0]);
    write(step.pages, inputs[1]);
    reference(*select, {{rows, k}}, seed + 1000, inputs, step.selectExpected);
    write(step.selectIndices, inputs[0]);
    write(step.tokens, HostTensor::zeros(ref::ElementType::I32, {rows, 16 * k}));
  }
  /// The decode step: the in-place update, then the two-kernel function.
  Status launchStep(const Step &step, void *on) {
    TensorRef inPlace(nullptr, DType::I32, step.pages.sizes());
    if (Status s = append->launch({step.appendIndices, step.pages}, {inPlace},
                                  on);
        !s)
      return s;
    return select->launch({step.selectIndices}, {step.tokens}, on);
  }
  void expectResults(const Step &step) {
    EXPECT_EQ(read(step.pages).data, step.appendExpected[0].data);
    EXPECT_EQ(read(step.tokens).data, step.selectExpected[0].data);
  }

  std::string error;
  std::unique_ptr<CudaDevice> device;
  CudaDevice::StreamHandle stream = nullptr;
  std::vector<CudaDevice::DevicePointer> allocations;
  std::unique_ptr<GpuFunction> append, select;
  std::unique_ptr<GpuGraph> graph;
  bool logging = false;
};

TEST_F(GpuGraphTest, ReplayMatchesTheDirectCallAndReadsNewContents) {
  Step step = makeStep(3, 5);
  fill(step, 1);
  std::string direct = logOf([&] {
    Status status = launchStep(step, stream);
    EXPECT_TRUE(status) << status.message();
  });
  expectResults(step);
  HostTensor directPages = read(step.pages), directTokens = read(step.tokens);

  // The same inputs again; the capture runs nothing.
  fill(step, 1);
  Status status;
  std::string captured = logOf([&] {
    graph = GpuGraph::capture(
        *device, stream, [&](void *on) { return launchStep(step, on); },
        status);
  });
  ASSERT_TRUE(graph) << status.message();
  EXPECT_EQ(read(step.tokens).data,
            HostTensor::zeros(ref::ElementType::I32, {3, 80}).data);
  std::string replayed = logOf([&] {
    Status replay = graph->replay(stream);
    EXPECT_TRUE(replay) << replay.message();
  });
  EXPECT_EQ(read(step.pages).data, directPages.data);
  EXPECT_EQ(read(step.tokens).data, directTokens.data);

  // New contents at the same addresses: the replay computes on them.
  for (uint64_t seed : {2, 3}) {
    fill(step, seed);
    ASSERT_TRUE(graph->replay(stream));
    expectResults(step);
  }
  // On another stream too.
  CudaDevice::StreamHandle other = nullptr;
  ASSERT_TRUE(device->createStream(other, error)) << error;
  fill(step, 4);
  ASSERT_TRUE(graph->replay(other));
  expectResults(step);
  device->destroyStream(other);

  if (!logging)
    GTEST_SKIP() << "the fake driver's log was off when this test started";
  // Three kernels recorded, none run, nothing allocated, freed or waited.
  EXPECT_EQ(linesOf(captured, "capture: launch").size(), 3u) << captured;
  EXPECT_TRUE(linesOf(captured, "launch").empty()) << captured;
  for (const char *what : {"alloc", "free", "synchronize", "capture invalid"})
    EXPECT_TRUE(linesOf(captured, what).empty()) << what << "\n" << captured;
  EXPECT_EQ(linesOf(captured, "capture end").size(), 1u) << captured;
  // The replay is the direct call's work: the same kernels, grids,
  // parameters and memory, on the stream given.
  EXPECT_EQ(linesOf(replayed, "launch"), linesOf(direct, "launch"));
  EXPECT_EQ(linesOf(replayed, "graph launch nodes=3").size(), 1u) << replayed;
}

TEST_F(GpuGraphTest, FunctionCaptureBindsBeforeCapturing) {
  // No launch before: capture() binds first, outside the capture.
  Step step = makeStep(2, 7);
  fill(step, 5);
  Status status;
  std::string log = logOf([&] {
    graph = select->capture({step.selectIndices}, {step.tokens}, stream,
                            status);
  });
  ASSERT_TRUE(graph) << status.message();
  ASSERT_TRUE(graph->replay(stream));
  EXPECT_EQ(read(step.tokens).data, step.selectExpected[0].data);
  if (!logging)
    GTEST_SKIP() << "the fake driver's log was off when this test started";
  size_t alloc = log.find("fake-cuda: alloc"), begin = log.find("capture begin");
  ASSERT_NE(alloc, std::string::npos) << log;
  EXPECT_LT(alloc, begin) << log;
}

TEST_F(GpuGraphTest, NewShapesWhileCapturingAreOneError) {
  Step small = makeStep(3, 5), large = makeStep(4, 6);
  fill(small, 6);
  ASSERT_TRUE(launchStep(small, stream));
  fill(large, 7);
  Status status;
  graph = GpuGraph::capture(
      *device, stream, [&](void *on) { return launchStep(large, on); },
      status);
  EXPECT_FALSE(graph);
  EXPECT_EQ(status.message(),
            "while capturing a CUDA graph: @expand_into cannot take new input "
            "shapes ([4, 6], [4, 24]) while its stream is capturing a CUDA "
            "graph: binding them allocates temporaries, which a capture "
            "cannot do; launch it (or prepare() it) once with these shapes "
            "before capturing");
  // prepare() is refused likewise inside a capture, not outside.
  status = Status();
  graph = GpuGraph::capture(
      *device, stream,
      [&](void *on) {
        return select->prepare({large.selectIndices}, {large.tokens}, on);
      },
      status);
  EXPECT_NE(status.message().find("@expand_twice cannot take new input "
                                  "shapes ([4, 6])"),
            std::string::npos)
      << status.message();
  // The stream left capture mode: direct launches of the new shapes run.
  bool capturing = true;
  ASSERT_TRUE(device->isCapturing(stream, capturing, error)) << error;
  EXPECT_FALSE(capturing);
  ASSERT_TRUE(launchStep(large, stream));
  expectResults(large);
}

TEST_F(GpuGraphTest, UncapturableCallsFailTheCapture) {
  Step step = makeStep(2, 3);
  fill(step, 8);
  ASSERT_TRUE(launchStep(step, stream));
  Status status;
  auto captureWith = [&](GpuGraph::Record record) {
    status = Status();
    graph = GpuGraph::capture(*device, stream, record, status);
    EXPECT_FALSE(graph);
    // Whatever failed, the stream is usable again.
    bool capturing = true;
    EXPECT_TRUE(device->isCapturing(stream, capturing, error)) << error;
    EXPECT_FALSE(capturing);
    return status.message();
  };
  auto failed = [](const std::string &what) {
    return [what](const std::string &message) {
      return message.find(what) != std::string::npos;
    };
  };
  // Waiting for the stream: the driver's own words.
  std::string message = captureWith([&](void *on) -> Status {
    if (Status s = launchStep(step, on); !s)
      return s;
    std::string why;
    return device->synchronizeStream(on, why) ? Status() : Status::error(why);
  });
  EXPECT_TRUE(failed("while capturing a CUDA graph: cuStreamSynchronize: "
                     "operation not permitted when stream is capturing "
                     "(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)")(message))
      << message;
  // An allocation whose failure the step ignores still fails the capture.
  message = captureWith([&](void *on) -> Status {
    if (Status s = launchStep(step, on); !s)
      return s;
    CudaDevice::DevicePointer pointer = 0;
    std::string ignored;
    if (device->allocate(64, pointer, ignored))
      allocations.push_back(pointer);
    return Status();
  });
  EXPECT_TRUE(failed("the CUDA graph capture failed: cuStreamEndCapture: "
                     "operation failed due to a previous error during "
                     "capture (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)")(
      message))
      << message;
  // A copy through pageable host memory: a replay would read it later.
  std::vector<char> host(64);
  message = captureWith([&](void *on) -> Status {
    std::string why;
    return device->copyToDeviceAsync(asPointer(step.pages.data), host.data(),
                                     host.size(), on, why)
               ? Status()
               : Status::error(why);
  });
  EXPECT_TRUE(failed("cuMemcpyHtoDAsync_v2: operation not permitted when "
                     "stream is capturing")(message))
      << message;
  // A synchronous copy (it waits for the legacy stream).
  message = captureWith([&](void *) -> Status {
    std::string why;
    return device->copyToDevice(asPointer(step.pages.data), host.data(),
                                host.size(), why)
               ? Status()
               : Status::error(why);
  });
  EXPECT_TRUE(failed("cuMemcpyHtoD_v2: operation not permitted")(message))
      << message;
  // Work on the legacy default stream during the capture.
  message = captureWith([&](void *) { return launchStep(step, nullptr); });
  EXPECT_TRUE(failed("CUDA_ERROR_STREAM_CAPTURE_IMPLICIT")(message))
      << message;
  // A capture inside a capture.
  message = captureWith([&](void *on) {
    Status inner;
    auto nested = GpuGraph::capture(
        *device, on, [&](void *s) { return launchStep(step, s); }, inner);
    return nested ? Status() : inner;
  });
  EXPECT_TRUE(failed("the stream is already capturing a CUDA graph")(message))
      << message;
  // The default stream cannot be captured at all.
  graph = GpuGraph::capture(
      *device, nullptr, [&](void *on) { return launchStep(step, on); },
      status);
  EXPECT_FALSE(graph);
  EXPECT_EQ(status.message(),
            "cannot capture the default stream: CUDA captures only a stream "
            "of its own (cuStreamCreate, torch.cuda.Stream)");
  // After all of it, the step still runs and captures.
  fill(step, 9);
  graph = GpuGraph::capture(
      *device, stream, [&](void *on) { return launchStep(step, on); },
      status);
  ASSERT_TRUE(graph) << status.message();
  ASSERT_TRUE(graph->replay(stream));
  expectResults(step);
}

TEST_F(GpuGraphTest, AGraphKeepsItsTemporariesWhenShapesChange) {
  Step step = makeStep(3, 5), other = makeStep(6, 2);
  fill(step, 10);
  Status status;
  graph = select->capture({step.selectIndices}, {step.tokens}, stream, status);
  ASSERT_TRUE(graph) << status.message();
  // Other shapes bind new temporaries; the captured ones stay.
  fill(other, 11);
  std::string rebind = logOf([&] {
    ASSERT_TRUE(select->launch({other.selectIndices}, {other.tokens}, stream));
  });
  EXPECT_EQ(read(other.tokens).data, other.selectExpected[0].data);
  // The graph's second kernel reads the temporary the first one wrote:
  // freed, the fake's bounds checks would fail the replay.
  fill(step, 12);
  ASSERT_TRUE(graph->replay(stream));
  EXPECT_EQ(read(step.tokens).data, step.selectExpected[0].data);
  ASSERT_TRUE(device->synchronizeStream(stream, error)) << error;
  if (!logging)
    GTEST_SKIP() << "the fake driver's log was off when this test started";
  EXPECT_TRUE(linesOf(rebind, "free").empty()) << rebind;
  EXPECT_EQ(linesOf(rebind, "alloc").size(), 1u) << rebind;
  // Freed with the function: the old and the new temporary.
  graph.reset();
  std::string destroyed = logOf([&] { select.reset(); });
  EXPECT_EQ(linesOf(destroyed, "free").size(), 2u) << destroyed;
}

} // namespace

#endif // INDEXPOOL_FAKE_CUDA_PATH
