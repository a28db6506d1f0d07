// The MLIR-free runtime alone: reads the manifest indexpool-compile wrote
// and binds its sizes for an input shape; then, given a second manifest and
// a driver (a GPU's, or the project's fake one through
// INDEXPOOL_LIBCUDA_PATH), launches it with GpuFunction on device memory and
// a stream of its own and checks the result. Exits 1 on any failure except
// a missing driver.
#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/GpuFunction.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/Version.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: consumer_runtime MANIFEST.json "
                         "[EXPAND_MANIFEST.json]\n");
    return 1;
  }
  namespace runtime = indexpool::runtime;
  runtime::Manifest symbolic, bound;
  std::string error;
  if (!runtime::loadManifest(argv[1], symbolic, error) ||
      !runtime::bindSizes(symbolic, {{4096, 64}, {4096}}, /*smCount=*/132,
                          bound, error)) {
    std::fprintf(stderr, "consumer_runtime: %s\n", error.c_str());
    return 1;
  }
  std::printf("consumer_runtime: runtime %s, @%s for %s: %zu launches, "
              "%zu buffers\n",
              runtime::version(), bound.function.c_str(), bound.chip.c_str(),
              bound.launches.size(), bound.buffers.size());
  std::unique_ptr<runtime::CudaDevice> device = runtime::CudaDevice::open(error);
  if (!device) {
    std::printf("consumer_runtime: no launch here (%s)\n", error.c_str());
    return 0;
  }
  if (argc < 3)
    return 0;

  // An expand (tokens[r, j*4+s] = indices[r, j]*4 + s, -1 for -1) on 3 x 5
  // indices, through the caller's device memory and stream.
  indexpool::Status status;
  auto expand = indexpool::GpuFunction::load(*device, argv[2], status);
  if (!expand) {
    std::fprintf(stderr, "consumer_runtime: %s\n", status.message().c_str());
    return 1;
  }
  std::vector<int32_t> indices = {3, -1, 7, 0, 12, 5, 5, 1, -1, 9, 2, 4, 8, 6, 11};
  std::vector<int32_t> tokens(indices.size() * 4, 0);
  runtime::CudaDevice::DevicePointer in = 0, out = 0;
  runtime::CudaDevice::StreamHandle stream = nullptr;
  if (!device->allocate(indices.size() * 4, in, error) ||
      !device->allocate(tokens.size() * 4, out, error) ||
      !device->createStream(stream, error) ||
      !device->copyToDevice(in, indices.data(), indices.size() * 4, error)) {
    std::fprintf(stderr, "consumer_runtime: %s\n", error.c_str());
    return 1;
  }
  indexpool::TensorRef inputs[] = {{reinterpret_cast<void *>(in),
                                    indexpool::DType::I32, {3, 5}}};
  indexpool::TensorRef outputs[] = {{reinterpret_cast<void *>(out),
                                     indexpool::DType::I32, {3, 20}}};
  status = expand->launch(inputs, 1, outputs, 1, stream);
  if (!status || !device->synchronizeStream(stream, error) ||
      !device->copyToHost(tokens.data(), out, tokens.size() * 4, error)) {
    std::fprintf(stderr, "consumer_runtime: %s%s\n", status.message().c_str(),
                 error.c_str());
    return 1;
  }
  for (size_t j = 0; j < indices.size(); ++j)
    for (int s = 0; s < 4; ++s)
      if (tokens[j * 4 + s] != (indices[j] < 0 ? -1 : indices[j] * 4 + s)) {
        std::fprintf(stderr, "consumer_runtime: token %zu is %d\n", j * 4 + s,
                     tokens[j * 4 + s]);
        return 1;
      }
  std::printf("consumer_runtime: GpuFunction launched %s on a stream of its "
              "own: 60 tokens -> ok\n", argv[2]);
  device->destroyStream(stream);
  device->release(in);
  device->release(out);
  return 0;
}
