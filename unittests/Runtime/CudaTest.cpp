//===- CudaTest.cpp - the driver wrapper and the launcher -----------------===//
//
// Three kinds of tests:
//  - without any driver: CudaDevice::open fails with one clear line;
//  - with the fake driver (test/FakeCuda/FakeCuda.cpp, host memory
//    and host kernels): the whole launch path, its timing and its errors,
//    on any machine;
//  - on a real GPU (GTEST_SKIP with the reason where there is none): the
//    hand-written PTX expand kernel against the reference.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Cuda.h"

#include "indexpool/Runtime/Launcher.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/ReferenceRun.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <optional>
#include <string>

using namespace indexpool::runtime;
namespace ref = indexpool::ref;
using ref::ElementType;
using ref::HostTensor;

namespace {

/// Sets an environment variable for one scope.
class ScopedEnvironment {
public:
  ScopedEnvironment(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      previous = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnvironment() {
    if (previous)
      setenv(name, previous->c_str(), 1);
    else
      unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> previous;
};

TEST(CudaTest, OpenFailsWithOneLineWithoutADriver) {
  std::string error;
  std::unique_ptr<CudaDevice> device =
      CudaDevice::open(error, 0, "/no/such/dir/libcuda.so.1");
  EXPECT_FALSE(device);
  EXPECT_EQ(error, "no CUDA driver: /no/such/dir/libcuda.so.1 not found");
  {
    ScopedEnvironment path("INDEXPOOL_LIBCUDA_PATH", "/no/such/libcuda.so");
    EXPECT_FALSE(CudaDevice::open(error));
    EXPECT_EQ(error, "no CUDA driver: /no/such/libcuda.so not found");
  }
  // A file that is not a shared library.
  EXPECT_FALSE(CudaDevice::open(error, 0, INDEXPOOL_TEST_INPUTS "/expand.ptx"));
  EXPECT_EQ(error.rfind("no CUDA driver: cannot load " INDEXPOOL_TEST_INPUTS
                        "/expand.ptx: ",
                        0),
            0u)
      << error;
}

TEST(CudaTest, OpenOnThisMachine) {
  ScopedEnvironment path("INDEXPOOL_LIBCUDA_PATH", nullptr);
  std::string error;
  std::unique_ptr<CudaDevice> device = CudaDevice::open(error);
  if (!device) {
    // No driver or no device: one line, the documented one.
    EXPECT_EQ(error.find('\n'), std::string::npos);
    if (error.rfind("no CUDA driver", 0) == 0)
      EXPECT_EQ(error, "no CUDA driver: libcuda.so.1 not found");
    GTEST_SKIP() << "no GPU here: " << error;
  }
  const DeviceInfo &info = device->info();
  EXPECT_GE(info.computeCapabilityMajor, 5);
  EXPECT_GT(info.multiprocessorCount, 0);
  EXPECT_GE(info.maxThreadsPerMultiprocessor, 1024);
  EXPECT_GE(info.sharedMemoryPerBlockOptin, info.sharedMemoryPerBlock);
  EXPECT_GT(info.l2CacheBytes, 0);
  EXPECT_GT(info.totalMemoryBytes, 0u);
  std::printf("device: %s\n", info.describe().c_str());
}

// Chip names parse in the target table's parseChipName (ChipsTest.cpp).
TEST(CudaTest, ChipCompatibility) {
  DeviceInfo device;
  device.name = "A100";
  device.computeCapabilityMajor = 8;
  device.computeCapabilityMinor = 6;
  std::string error;
  EXPECT_TRUE(checkChipCompatibility("sm_80", BinaryFormat::Cubin, device,
                                     error));
  EXPECT_TRUE(
      checkChipCompatibility("sm_80", BinaryFormat::Ptx, device, error));
  EXPECT_FALSE(checkChipCompatibility("sm_89", BinaryFormat::Cubin, device,
                                      error));
  EXPECT_EQ(error, "the binary is a cubin for sm_89, which device 0 (A100, "
                   "sm_86) cannot run: compile it for sm_86 (indexpool-compile "
                   "--chip=sm_86)");
  device.computeCapabilityMajor = 9;
  device.computeCapabilityMinor = 0;
  EXPECT_FALSE(checkChipCompatibility("sm_80", BinaryFormat::Cubin, device,
                                      error));
  EXPECT_TRUE(
      checkChipCompatibility("sm_80", BinaryFormat::Ptx, device, error));
  EXPECT_TRUE(checkChipCompatibility("sm_90a", BinaryFormat::Cubin, device,
                                     error));
  device.computeCapabilityMajor = 10;
  EXPECT_FALSE(checkChipCompatibility("sm_90a", BinaryFormat::Ptx, device,
                                      error));
  EXPECT_EQ(device.chip(), "sm_100");
}

TEST(CudaTest, StorageFormatsRoundTrip) {
  HostTensor t{ElementType::BF16, {3}, {1.0, -2.5, 0.0078125}};
  std::vector<char> bytes = packTensor(t);
  ASSERT_EQ(bytes.size(), 6u);
  EXPECT_EQ(uint8_t(bytes[1]), 0x3F); // 1.0 = 0x3F80
  EXPECT_EQ(uint8_t(bytes[0]), 0x80);
  EXPECT_EQ(unpackTensor(bytes.data(), t.type, t.shape).data, t.data);
  for (ElementType type : {ElementType::F32, ElementType::F16,
                           ElementType::F8E4M3FN, ElementType::I8,
                           ElementType::I32}) {
    HostTensor v{type, {4}, {1.0, -3.0, 0.0, 104.0}};
    std::vector<char> packed = packTensor(v);
    EXPECT_EQ(packed.size(), size_t(4 * ref::elementTypeBytes(type)));
    EXPECT_EQ(unpackTensor(packed.data(), type, v.shape).data, v.data)
        << ref::elementTypeName(type);
  }
}

#ifdef INDEXPOOL_FAKE_CUDA_PATH

/// Opens the fake driver.
std::unique_ptr<CudaDevice> openFake(std::string &error, int ordinal = 0) {
  return CudaDevice::open(error, ordinal, INDEXPOOL_FAKE_CUDA_PATH);
}

Manifest loadFakeManifest() {
  Manifest manifest;
  std::string error;
  EXPECT_TRUE(loadManifest(INDEXPOOL_TEST_INPUTS "/fake.json", manifest, error))
      << error;
  return manifest;
}

TEST(FakeCudaTest, DeviceFacts) {
  std::string error;
  std::unique_ptr<CudaDevice> device = openFake(error);
  ASSERT_TRUE(device) << error;
  const DeviceInfo &info = device->info();
  EXPECT_EQ(info.name, "IndexPool fake GPU");
  EXPECT_EQ(info.chip(), "sm_90");
  EXPECT_EQ(info.multiprocessorCount, 132);
  EXPECT_EQ(info.sharedMemoryPerBlockOptin, 227 * 1024);
  EXPECT_EQ(info.driverVersion, 12040);
  EXPECT_NEAR(info.peakBandwidthGBps(), 3352.3, 0.1);
  EXPECT_EQ(info.describe(),
            "IndexPool fake GPU (sm_90, 132 SMs, 2048 threads/SM, 228 KiB "
            "shared/SM, 50 MiB L2, 80.0 GiB, driver 12.4)");
}

TEST(FakeCudaTest, NoDeviceAndBadOrdinal) {
  std::string error;
  {
    ScopedEnvironment none("INDEXPOOL_FAKE_CUDA_DEVICES", "0");
    EXPECT_FALSE(openFake(error));
    EXPECT_EQ(error, "no CUDA device");
  }
  EXPECT_FALSE(openFake(error, 2));
  EXPECT_EQ(error, "no CUDA device 2 (this machine has 1)");
}

TEST(FakeCudaTest, MemoryRoundTrip) {
  std::string error;
  std::unique_ptr<CudaDevice> device = openFake(error);
  ASSERT_TRUE(device) << error;
  CudaDevice::DevicePointer a = 0, b = 0;
  ASSERT_TRUE(device->allocate(64, a, error)) << error;
  ASSERT_TRUE(device->allocate(64, b, error)) << error;
  std::vector<char> data(64), back(64, 1);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = char(i * 7);
  ASSERT_TRUE(device->copyToDevice(a, data.data(), 64, error)) << error;
  ASSERT_TRUE(device->copyOnDevice(b, a, 64, error)) << error;
  ASSERT_TRUE(device->copyToHost(back.data(), b, 64, error)) << error;
  EXPECT_EQ(back, data);
  ASSERT_TRUE(device->fillZero(b, 64, error)) << error;
  ASSERT_TRUE(device->copyToHost(back.data(), b, 64, error)) << error;
  EXPECT_EQ(back, std::vector<char>(64, 0));
  // Out of bounds: the driver's words, with the call's name.
  EXPECT_FALSE(device->copyToHost(back.data(), b + 8, 64, error));
  EXPECT_EQ(error, "cuMemcpyDtoH_v2: invalid argument "
                   "(CUDA_ERROR_INVALID_VALUE)");
  CudaDevice::DevicePointer none = 1;
  ASSERT_TRUE(device->allocate(0, none, error));
  EXPECT_EQ(none, 0u);
  device->release(a);
  device->release(b);
}

TEST(FakeCudaTest, LauncherRunsTheManifestAndMatchesTheReference) {
  std::string error;
  std::unique_ptr<CudaDevice> device = openFake(error);
  ASSERT_TRUE(device) << error;
  Manifest manifest = loadFakeManifest();
  std::string image;
  ASSERT_TRUE(readBinary(manifest, image, error)) << error;
  std::unique_ptr<Launcher> launcher =
      Launcher::create(*device, manifest, image, error);
  ASSERT_TRUE(launcher) << error;
  EXPECT_NE(launcher->pointerOf(5), 0u); // the temporary has memory
  EXPECT_EQ(launcher->inputOutputBytes(), 8 * 16 + 8 * 4 + 2 * 8 * 4 +
                                              8 * 16 * 4 + 2 * 32 * 4);
  std::vector<HostTensor> inputs = generateRandomInputs(manifest, 5);
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(launcher->upload(inputs, error)) << error;
  ASSERT_TRUE(launcher->run(error)) << error;
  ASSERT_TRUE(launcher->download(outputs, error)) << error;
  ReferenceValues values;
  ASSERT_TRUE(runReference(manifest, inputs, values, error)) << error;
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].data, values.at(3).data);
  EXPECT_EQ(outputs[1].data, values.at(4).data);
  std::vector<double> times;
  ASSERT_TRUE(launcher->benchmark(3, times, error)) << error;
  ASSERT_EQ(times.size(), 3u);
  for (double ms : times)
    EXPECT_GE(ms, 0);
  ASSERT_TRUE(launcher->benchmarkCopy(1000, 2, times, error)) << error;
  EXPECT_EQ(times.size(), 2u);
  // Wrong inputs are refused before anything is copied.
  inputs.pop_back();
  EXPECT_FALSE(launcher->upload(inputs, error));
  EXPECT_EQ(error, "got 2 inputs for 3 input buffers");
}

TEST(FakeCudaTest, LaunchErrorsNameTheKernelAndTheCall) {
  std::string error;
  std::unique_ptr<CudaDevice> device = openFake(error);
  ASSERT_TRUE(device) << error;
  Manifest manifest = loadFakeManifest();
  std::string image;
  ASSERT_TRUE(readBinary(manifest, image, error)) << error;

  Manifest missing = manifest;
  missing.launches[1].kernel = "no_such_kernel";
  missing.kernels[1].name = "no_such_kernel";
  EXPECT_FALSE(Launcher::create(*device, missing, image, error));
  EXPECT_EQ(error, "kernel 'no_such_kernel' is not in the binary: "
                   "cuModuleGetFunction: named symbol not found "
                   "(CUDA_ERROR_NOT_FOUND)");

  std::string notPtx = "garbage";
  notPtx.push_back('\0');
  EXPECT_FALSE(Launcher::create(*device, manifest, notPtx, error));
  EXPECT_EQ(error, "cannot load " INDEXPOOL_TEST_INPUTS
                   "/fake.ptx: cuModuleLoadDataEx: a PTX JIT compilation "
                   "failed (CUDA_ERROR_INVALID_PTX): ptxas application ptx "
                   "input, line 1; fatal   : Missing .version directive at "
                   "start of file; ptxas fatal   : Ptx assembly aborted due "
                   "to errors");

  // Launches built in code are checked against their kernel's signature
  // before the driver sees them (it would read a fourth parameter that is
  // not there).
  Manifest fewer = manifest;
  fewer.launches[1].params.pop_back();
  EXPECT_FALSE(Launcher::create(*device, fewer, image, error));
  EXPECT_EQ(error, "launches[1] (indexpool_test_expand): kernel "
                   "'indexpool_test_expand' takes 4 parameters, the launch "
                   "passes 3");
  Manifest small = manifest;
  small.launches[1].params[1].buffer = 5;
  EXPECT_FALSE(Launcher::create(*device, small, image, error));
  EXPECT_EQ(error, "launches[1] (indexpool_test_expand): params[1]: kernel "
                   "'indexpool_test_expand' accesses 256 bytes through "
                   "parameter 1, but buffer 5 (tensor<8xf32>) has 32");

  Manifest big = manifest;
  big.launches[0].sharedMemoryBytes = 300 * 1024;
  EXPECT_FALSE(Launcher::create(*device, big, image, error));
  EXPECT_EQ(error, "launches[0] (indexpool_test_dequantize_f8): 307200 bytes "
                   "of shared memory per block, the device allows 232448");

  Manifest newer = manifest;
  newer.chip = "sm_100";
  EXPECT_FALSE(Launcher::create(*device, newer, image, error));
  EXPECT_EQ(error, "the binary is PTX for sm_100, which device 0 (IndexPool "
                   "fake GPU, sm_90) cannot run: compile it for sm_90 "
                   "(indexpool-compile --chip=sm_90)");
}

TEST(FakeCudaTest, SizesAreBoundAndTheCallersStreamIsUsed) {
  std::string error;
  std::unique_ptr<CudaDevice> device = openFake(error);
  ASSERT_TRUE(device) << error;
  Manifest symbolic;
  ASSERT_TRUE(loadManifest(INDEXPOOL_TEST_INPUTS "/expand-dynamic.json",
                           symbolic, error))
      << error;
  std::string image;
  ASSERT_TRUE(readBinary(symbolic, image, error)) << error;
  // A manifest with sizes runs only once bound.
  EXPECT_FALSE(Launcher::create(*device, symbolic, image, error));
  EXPECT_EQ(error, INDEXPOOL_TEST_INPUTS
            "/expand-dynamic.json has sizes known at launch: bind them to "
            "the inputs' shapes first (bindSizes)");

  CudaDevice::StreamHandle stream = nullptr;
  ASSERT_TRUE(device->createStream(stream, error)) << error;
  ASSERT_NE(stream, nullptr);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{3, 5}, {20, 8}}) {
    Manifest bound;
    ASSERT_TRUE(bindSizes(symbolic, {shape}, device->info().multiprocessorCount,
                          bound, error))
        << error;
    std::unique_ptr<Launcher> launcher =
        Launcher::create(*device, bound, image, error, stream);
    ASSERT_TRUE(launcher) << error;
    std::vector<HostTensor> inputs = generateRandomInputs(bound, 7);
    std::vector<HostTensor> outputs;
    ASSERT_TRUE(launcher->upload(inputs, error)) << error;
    ASSERT_TRUE(launcher->run(error)) << error;
    ASSERT_TRUE(launcher->download(outputs, error)) << error;
    ReferenceValues values;
    ASSERT_TRUE(runReference(bound, inputs, values, error)) << error;
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{shape[0], shape[1] * 4}));
    EXPECT_EQ(outputs[0].data, values.at(1).data);
    std::vector<double> times;
    ASSERT_TRUE(launcher->benchmark(2, times, error)) << error;
  }
  device->destroyStream(stream);
  // A stream the driver does not know is the driver's error, naming the call.
  Manifest bound;
  ASSERT_TRUE(bindSizes(symbolic, {{2, 8}}, 132, bound, error)) << error;
  std::unique_ptr<Launcher> launcher =
      Launcher::create(*device, bound, image, error, stream);
  ASSERT_TRUE(launcher) << error;
  EXPECT_FALSE(launcher->run(error));
  EXPECT_EQ(error, "launches[0] (indexpool_test_expand): cuLaunchKernel: "
                   "invalid resource handle (CUDA_ERROR_INVALID_HANDLE)");
}

// Runs last among the fake tests: an illegal address is sticky, as on a GPU
// (the context is unusable afterwards).
TEST(FakeCudaTest, ZzAsynchronousFaultsAreReportedWithTheirKernel) {
  std::string error;
  std::unique_ptr<CudaDevice> device = openFake(error);
  ASSERT_TRUE(device) << error;
  Manifest manifest = loadFakeManifest();
  manifest.launches[1].kernel = "indexpool_test_fault";
  manifest.launches[1].params.clear();
  manifest.kernels.push_back({"indexpool_test_fault", {}});
  std::string image;
  ASSERT_TRUE(readBinary(manifest, image, error)) << error;
  std::unique_ptr<Launcher> launcher =
      Launcher::create(*device, manifest, image, error);
  ASSERT_TRUE(launcher) << error;
  EXPECT_FALSE(launcher->run(error));
  EXPECT_EQ(error, "launches[1] (indexpool_test_fault): cuStreamSynchronize: "
                   "an illegal memory access was encountered "
                   "(CUDA_ERROR_ILLEGAL_ADDRESS)");
}

#endif // INDEXPOOL_FAKE_CUDA_PATH

TEST(GpuTest, ExpandKernelMatchesTheReference) {
  ScopedEnvironment path("INDEXPOOL_LIBCUDA_PATH", nullptr);
  std::string error;
  std::unique_ptr<CudaDevice> device = CudaDevice::open(error);
  if (!device)
    GTEST_SKIP() << "needs a CUDA GPU: " << error;
  Manifest manifest;
  ASSERT_TRUE(
      loadManifest(INDEXPOOL_TEST_INPUTS "/expand.json", manifest, error))
      << error;
  std::string image;
  ASSERT_TRUE(readBinary(manifest, image, error)) << error;
  std::unique_ptr<Launcher> launcher =
      Launcher::create(*device, manifest, image, error);
  ASSERT_TRUE(launcher) << error;
  std::vector<HostTensor> inputs = generateRandomInputs(manifest, 1);
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(launcher->upload(inputs, error)) << error;
  ASSERT_TRUE(launcher->run(error)) << error;
  ASSERT_TRUE(launcher->download(outputs, error)) << error;
  ReferenceValues values;
  ASSERT_TRUE(runReference(manifest, inputs, values, error)) << error;
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].data, values.at(1).data);
  std::vector<double> times;
  ASSERT_TRUE(launcher->benchmark(5, times, error)) << error;
  EXPECT_EQ(times.size(), 5u);
}

} // namespace
