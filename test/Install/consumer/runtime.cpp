// The MLIR-free runtime alone: reads the manifest indexpool-compile wrote,
// binds its sizes for an input shape, and opens the CUDA driver where there
// is one. Exits 1 on any failure except a missing driver.
#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/Version.h"

#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer_runtime MANIFEST.json\n");
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
  if (!runtime::CudaDevice::open(error))
    std::printf("consumer_runtime: no launch here (%s)\n", error.c_str());
  return 0;
}
