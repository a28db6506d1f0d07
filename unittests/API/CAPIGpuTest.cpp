//===- CAPIGpuTest.cpp - the C API's GPU functions on the fake driver -----===//
//
// indexpool_gpu_function_* through the project's fake CUDA driver (no GPU
// here; test/FakeCuda): load a dynamic manifest, size the outputs, launch on
// device memory the test allocates, and the errors of bad calls.
//
//===----------------------------------------------------------------------===//

#include "indexpool-c/IndexPool.h"
#include "indexpool/Runtime/Cuda.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#ifdef INDEXPOOL_FAKE_CUDA_PATH

namespace {

std::string message(indexpool_status_t status) {
  std::string text = indexpool_status_message(status);
  indexpool_status_free(status);
  return text;
}

TEST(CAPIGpuTest, LoadsSizesAndLaunchesAManifest) {
  setenv("INDEXPOOL_LIBCUDA_PATH", INDEXPOOL_FAKE_CUDA_PATH, /*overwrite=*/1);
  std::string manifest =
      std::string(INDEXPOOL_TEST_INPUTS) + "/expand-dynamic.json";
  indexpool_gpu_function_t expand = nullptr;
  ASSERT_EQ(message(indexpool_gpu_function_load(manifest.c_str(), 0, &expand)),
            "");
  ASSERT_NE(expand, nullptr);
  EXPECT_EQ(indexpool_gpu_function_num_inputs(expand), 1u);
  EXPECT_EQ(indexpool_gpu_function_num_outputs(expand), 1u);

  // Device memory of the test's own (the fake driver's host memory).
  std::string error;
  auto device = indexpool::runtime::CudaDevice::open(error);
  ASSERT_TRUE(device) << error;
  std::vector<int32_t> indices = {4, -1, 0, 9, 2, 2, 7, -1};
  indexpool::runtime::CudaDevice::DevicePointer in = 0, out = 0;
  ASSERT_TRUE(device->allocate(indices.size() * 4, in, error)) << error;
  ASSERT_TRUE(device->allocate(indices.size() * 16, out, error)) << error;
  ASSERT_TRUE(device->copyToDevice(in, indices.data(), indices.size() * 4,
                                   error))
      << error;
  indexpool_tensor_t inputs[1] = {
      {reinterpret_cast<void *>(in), INDEXPOOL_I32, 2, {2, 4}}};
  indexpool_tensor_t outputs[1];
  ASSERT_EQ(message(indexpool_gpu_function_output_shapes(expand, inputs, 1,
                                                         outputs, 1)),
            "");
  EXPECT_EQ(outputs[0].rank, 2);
  EXPECT_EQ(outputs[0].shape[0], 2);
  EXPECT_EQ(outputs[0].shape[1], 16);
  outputs[0].data = reinterpret_cast<void *>(out);
  ASSERT_EQ(message(indexpool_gpu_function_launch(expand, inputs, 1, outputs,
                                                  1, nullptr)),
            "");
  ASSERT_TRUE(device->synchronize(error)) << error;
  std::vector<int32_t> tokens(indices.size() * 4);
  ASSERT_TRUE(device->copyToHost(tokens.data(), out, tokens.size() * 4, error))
      << error;
  for (size_t j = 0; j < indices.size(); ++j)
    for (int s = 0; s < 4; ++s)
      EXPECT_EQ(tokens[j * 4 + s], indices[j] < 0 ? -1 : indices[j] * 4 + s);

  // Bad calls: one message each, nothing launched.
  indexpool_tensor_t wrong = inputs[0];
  wrong.dtype = INDEXPOOL_F32;
  EXPECT_EQ(message(indexpool_gpu_function_launch(expand, &wrong, 1, outputs,
                                                  1, nullptr)),
            "input #0 is f32, expected tensor<?x?xi32>");
  EXPECT_EQ(message(indexpool_gpu_function_launch(nullptr, inputs, 1, outputs,
                                                  1, nullptr)),
            "function is NULL");
  indexpool_gpu_function_t missing = nullptr;
  EXPECT_NE(message(indexpool_gpu_function_load("/nonexistent.json", 0,
                                                &missing)),
            "");
  EXPECT_EQ(missing, nullptr);

  device->release(in);
  device->release(out);
  indexpool_gpu_function_destroy(expand);
}

} // namespace

#endif // INDEXPOOL_FAKE_CUDA_PATH
