//===- Cuda.cpp - the CUDA driver, loaded at run time ---------------------===//
//
// The few types and constants of cuda.h this file needs are declared here
// (their values are part of the driver's stable ABI); the functions are
// looked up with dlsym by the names cuda.h maps them to. The library is
// never dlclose'd: the driver keeps threads and state for the process's
// lifetime, and unloading it under them is what other runtimes avoid too.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Cuda.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <vector>

// The driver's opaque handle types, at global scope with cuda.h's names, so
// that a function pointer's type is the callee's (what UBSan's
// -fsanitize=function checks against an instrumented driver, e.g. the fake
// one of the tests).
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
struct CUgraph_st;
struct CUgraphExec_st;

namespace indexpool::runtime {

namespace {

// From cuda.h (driver API).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;
using CUgraph = CUgraph_st *;
using CUgraphExec = CUgraphExec_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;

// CUdevice_attribute.
constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36;
constexpr int CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37;
constexpr int CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106;

// CUfunction_attribute.
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

// CUjit_option.
constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

// CUstreamCaptureMode and CUstreamCaptureStatus.
constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
constexpr int CU_STREAM_CAPTURE_STATUS_NONE = 0;

constexpr unsigned CU_EVENT_DEFAULT = 0;
constexpr unsigned CU_STREAM_DEFAULT = 0;

} // namespace

/// The driver's entry points.
struct CudaDevice::Driver {
  void *library = nullptr;
  std::string path;

  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int *) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext *) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemHostAlloc)(void **, size_t, unsigned) = nullptr;
  CUresult (*cuMemFreeHost)(void *) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t,
                                CUstream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t,
                                CUstream) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t,
                                CUstream) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t,
                              CUstream) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule,
                                  const char *) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **) = nullptr;
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  // Graphs (optional; capture mode and status are C enums, int-sized).
  CUresult (*cuStreamBeginCapture)(CUstream, int) = nullptr;
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *) = nullptr;
  CUresult (*cuStreamIsCapturing)(CUstream, int *) = nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph,
                                          unsigned long long) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph) = nullptr;

  bool hasGraphs() const {
    return cuStreamBeginCapture && cuStreamEndCapture && cuStreamIsCapturing &&
           cuGraphInstantiateWithFlags && cuGraphLaunch &&
           cuGraphExecDestroy && cuGraphDestroy;
  }

  /// Resolves every entry point; on failure names the first missing one.
  bool resolve(std::string &error) {
    // Each entry: the slot and the names to try, newest ABI first.
    struct Symbol {
      void **slot;
      std::vector<const char *> names;
    };
    auto slot = [](auto &function) {
      return reinterpret_cast<void **>(&function);
    };
    const Symbol symbols[] = {
        {slot(cuInit), {"cuInit"}},
        {slot(cuDriverGetVersion), {"cuDriverGetVersion"}},
        {slot(cuDeviceGetCount), {"cuDeviceGetCount"}},
        {slot(cuDeviceGet), {"cuDeviceGet"}},
        {slot(cuDeviceGetName), {"cuDeviceGetName"}},
        {slot(cuDeviceGetAttribute), {"cuDeviceGetAttribute"}},
        {slot(cuDeviceTotalMem), {"cuDeviceTotalMem_v2"}},
        {slot(cuDevicePrimaryCtxRetain), {"cuDevicePrimaryCtxRetain"}},
        {slot(cuDevicePrimaryCtxRelease), {"cuDevicePrimaryCtxRelease_v2"}},
        {slot(cuCtxSetCurrent), {"cuCtxSetCurrent"}},
        {slot(cuCtxGetCurrent), {"cuCtxGetCurrent"}},
        {slot(cuCtxSynchronize), {"cuCtxSynchronize"}},
        {slot(cuMemAlloc), {"cuMemAlloc_v2"}},
        {slot(cuMemFree), {"cuMemFree_v2"}},
        {slot(cuMemHostAlloc), {"cuMemHostAlloc"}},
        {slot(cuMemFreeHost), {"cuMemFreeHost"}},
        {slot(cuMemcpyHtoD), {"cuMemcpyHtoD_v2"}},
        {slot(cuMemcpyDtoH), {"cuMemcpyDtoH_v2"}},
        {slot(cuMemcpyDtoD), {"cuMemcpyDtoD_v2"}},
        {slot(cuMemsetD8), {"cuMemsetD8_v2"}},
        {slot(cuMemcpyHtoDAsync), {"cuMemcpyHtoDAsync_v2"}},
        {slot(cuMemcpyDtoHAsync), {"cuMemcpyDtoHAsync_v2"}},
        {slot(cuMemcpyDtoDAsync), {"cuMemcpyDtoDAsync_v2"}},
        {slot(cuMemsetD8Async), {"cuMemsetD8Async"}},
        {slot(cuStreamCreate), {"cuStreamCreate"}},
        {slot(cuStreamDestroy), {"cuStreamDestroy_v2"}},
        {slot(cuStreamSynchronize), {"cuStreamSynchronize"}},
        {slot(cuModuleLoadDataEx), {"cuModuleLoadDataEx"}},
        {slot(cuModuleUnload), {"cuModuleUnload"}},
        {slot(cuModuleGetFunction), {"cuModuleGetFunction"}},
        {slot(cuFuncSetAttribute), {"cuFuncSetAttribute"}},
        {slot(cuLaunchKernel), {"cuLaunchKernel"}},
        {slot(cuEventCreate), {"cuEventCreate"}},
        {slot(cuEventRecord), {"cuEventRecord"}},
        {slot(cuEventSynchronize), {"cuEventSynchronize"}},
        // CUDA 12.8 added the _v2 (same signature); older drivers have the
        // original only.
        {slot(cuEventElapsedTime),
         {"cuEventElapsedTime_v2", "cuEventElapsedTime"}},
        {slot(cuEventDestroy), {"cuEventDestroy_v2"}},
        {slot(cuGetErrorString), {"cuGetErrorString"}},
        {slot(cuGetErrorName), {"cuGetErrorName"}},
    };
    for (const Symbol &symbol : symbols) {
      for (const char *name : symbol.names)
        if ((*symbol.slot = dlsym(library, name)))
          break;
      if (!*symbol.slot) {
        error = "the CUDA driver " + path + " has no " + symbol.names.back() +
                " (a driver older than CUDA 11?)";
        return false;
      }
    }
    // CUDA graphs: looked up, not required (hasGraphs() tells).
    const Symbol graphSymbols[] = {
        {slot(cuStreamBeginCapture), {"cuStreamBeginCapture_v2"}},
        {slot(cuStreamEndCapture), {"cuStreamEndCapture"}},
        {slot(cuStreamIsCapturing), {"cuStreamIsCapturing"}},
        {slot(cuGraphInstantiateWithFlags), {"cuGraphInstantiateWithFlags"}},
        {slot(cuGraphLaunch), {"cuGraphLaunch"}},
        {slot(cuGraphExecDestroy), {"cuGraphExecDestroy"}},
        {slot(cuGraphDestroy), {"cuGraphDestroy"}},
    };
    for (const Symbol &symbol : graphSymbols)
      *symbol.slot = dlsym(library, symbol.names.front());
    return true;
  }

  /// "cuMemAlloc_v2: out of memory (CUDA_ERROR_OUT_OF_MEMORY)".
  std::string describe(const char *call, CUresult result) const {
    const char *text = nullptr, *name = nullptr;
    if (cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
      text = "unknown error";
    if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
      name = nullptr;
    std::string message = std::string(call) + ": " + text;
    message += name ? std::string(" (") + name + ")"
                    : " (CUresult " + std::to_string(result) + ")";
    return message;
  }

  bool check(CUresult result, const char *call, std::string &error) const {
    if (result == CUDA_SUCCESS)
      return true;
    error = describe(call, result);
    return false;
  }
};

//===----------------------------------------------------------------------===//
// DeviceInfo
//===----------------------------------------------------------------------===//

std::string DeviceInfo::chip() const {
  return "sm_" + std::to_string(computeCapabilityMajor) +
         std::to_string(computeCapabilityMinor);
}

double DeviceInfo::peakBandwidthGBps() const {
  // DDR: two transfers per clock.
  return 2.0 * memoryClockKHz * 1e3 * (memoryBusWidthBits / 8.0) / 1e9;
}

std::string DeviceInfo::describe() const {
  char text[512];
  std::snprintf(text, sizeof(text),
                "%s (%s, %d SMs, %d threads/SM, %d KiB shared/SM, %d MiB L2, "
                "%.1f GiB, driver %d.%d)",
                name.c_str(), chip().c_str(), multiprocessorCount,
                maxThreadsPerMultiprocessor,
                sharedMemoryPerMultiprocessor / 1024, l2CacheBytes >> 20,
                double(totalMemoryBytes) / double(1ull << 30),
                driverVersion / 1000, driverVersion % 1000 / 10);
  return text;
}

//===----------------------------------------------------------------------===//
// CudaDevice
//===----------------------------------------------------------------------===//

std::unique_ptr<CudaDevice> CudaDevice::open(std::string &error, int ordinal,
                                             const std::string &driverPath) {
  std::string path = driverPath;
  if (path.empty())
    if (const char *fromEnvironment = std::getenv("INDEXPOOL_LIBCUDA_PATH"))
      path = fromEnvironment;
  if (path.empty())
    path = "libcuda.so.1";

  dlerror();
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    std::string reason = why ? why : "";
    if (reason.find("No such file") != std::string::npos || reason.empty())
      error = "no CUDA driver: " + path + " not found";
    else
      error = "no CUDA driver: cannot load " + path + ": " + reason;
    return nullptr;
  }
  std::unique_ptr<CudaDevice> result(new CudaDevice());
  result->driver = std::make_unique<Driver>();
  Driver &d = *result->driver;
  d.library = library;
  d.path = path;
  if (!d.resolve(error))
    return nullptr;

  CUresult status = d.cuInit(0);
  if (status == CUDA_ERROR_NO_DEVICE) {
    error = "no CUDA device";
    return nullptr;
  }
  if (status != CUDA_SUCCESS) {
    error = "the CUDA driver cannot start: " + d.describe("cuInit", status);
    return nullptr;
  }
  int count = 0;
  if (!d.check(d.cuDeviceGetCount(&count), "cuDeviceGetCount", error))
    return nullptr;
  if (count == 0) {
    error = "no CUDA device";
    return nullptr;
  }
  if (ordinal < 0 || ordinal >= count) {
    error = "no CUDA device " + std::to_string(ordinal) +
            " (this machine has " + std::to_string(count) + ")";
    return nullptr;
  }
  CUdevice device;
  if (!d.check(d.cuDeviceGet(&device, ordinal), "cuDeviceGet", error))
    return nullptr;
  result->device = device;

  DeviceInfo &info = result->deviceInfo;
  info.ordinal = ordinal;
  char name[256] = {};
  if (!d.check(d.cuDeviceGetName(name, int(sizeof(name) - 1), device),
               "cuDeviceGetName", error))
    return nullptr;
  info.name = name;
  struct Attribute {
    int attribute;
    int *value;
  };
  const Attribute attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
       &info.computeCapabilityMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
       &info.computeCapabilityMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.multiprocessorCount},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
       &info.maxThreadsPerMultiprocessor},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &info.maxThreadsPerBlock},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
       &info.maxBlocksPerMultiprocessor},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
       &info.registersPerMultiprocessor},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
       &info.sharedMemoryPerMultiprocessor},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
       &info.sharedMemoryPerBlock},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &info.sharedMemoryPerBlockOptin},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &info.l2CacheBytes},
      {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &info.memoryClockKHz},
      {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &info.memoryBusWidthBits},
  };
  for (const Attribute &a : attributes)
    if (!d.check(d.cuDeviceGetAttribute(a.value, a.attribute, device),
                 "cuDeviceGetAttribute", error))
      return nullptr;
  size_t totalMemory = 0;
  if (!d.check(d.cuDeviceTotalMem(&totalMemory, device), "cuDeviceTotalMem_v2",
               error))
    return nullptr;
  info.totalMemoryBytes = totalMemory;
  if (!d.check(d.cuDriverGetVersion(&info.driverVersion), "cuDriverGetVersion",
               error))
    return nullptr;

  CUcontext context = nullptr;
  if (!d.check(d.cuDevicePrimaryCtxRetain(&context, device),
               "cuDevicePrimaryCtxRetain", error))
    return nullptr;
  result->context = context;
  if (!d.check(d.cuCtxSetCurrent(context), "cuCtxSetCurrent", error))
    return nullptr;
  return result;
}

bool CudaDevice::makeCurrent(ContextHandle &previous, std::string &error) {
  CUcontext current = nullptr;
  if (!driver->check(driver->cuCtxGetCurrent(&current), "cuCtxGetCurrent",
                     error))
    return false;
  previous = current;
  return current == context ||
         driver->check(driver->cuCtxSetCurrent(static_cast<CUcontext>(context)),
                       "cuCtxSetCurrent", error);
}

void CudaDevice::restoreContext(ContextHandle previous) {
  if (previous != context)
    driver->cuCtxSetCurrent(static_cast<CUcontext>(previous));
}

CudaDevice::~CudaDevice() {
  if (driver && context) {
    driver->cuCtxSetCurrent(nullptr);
    driver->cuDevicePrimaryCtxRelease(device);
  }
}

bool CudaDevice::allocate(size_t bytes, DevicePointer &out,
                          std::string &error) {
  out = 0;
  if (bytes == 0)
    return true;
  CUdeviceptr pointer = 0;
  if (!driver->check(driver->cuMemAlloc(&pointer, bytes), "cuMemAlloc_v2",
                     error)) {
    error += " allocating " + std::to_string(bytes) + " bytes";
    return false;
  }
  out = pointer;
  return true;
}

void CudaDevice::release(DevicePointer pointer) {
  if (pointer)
    driver->cuMemFree(pointer);
}

bool CudaDevice::allocateHost(size_t bytes, void *&out, std::string &error) {
  out = nullptr;
  if (bytes == 0)
    return true;
  if (!driver->check(driver->cuMemHostAlloc(&out, bytes, 0), "cuMemHostAlloc",
                     error)) {
    out = nullptr;
    error += " allocating " + std::to_string(bytes) + " bytes of pinned memory";
    return false;
  }
  return true;
}

void CudaDevice::releaseHost(void *pointer) {
  if (pointer)
    driver->cuMemFreeHost(pointer);
}

bool CudaDevice::copyToDevice(DevicePointer destination, const void *source,
                              size_t bytes, std::string &error) {
  return bytes == 0 ||
         driver->check(driver->cuMemcpyHtoD(destination, source, bytes),
                       "cuMemcpyHtoD_v2", error);
}

bool CudaDevice::copyToHost(void *destination, DevicePointer source,
                            size_t bytes, std::string &error) {
  return bytes == 0 ||
         driver->check(driver->cuMemcpyDtoH(destination, source, bytes),
                       "cuMemcpyDtoH_v2", error);
}

bool CudaDevice::copyOnDevice(DevicePointer destination, DevicePointer source,
                              size_t bytes, std::string &error) {
  return bytes == 0 ||
         driver->check(driver->cuMemcpyDtoD(destination, source, bytes),
                       "cuMemcpyDtoD_v2", error);
}

bool CudaDevice::fillZero(DevicePointer destination, size_t bytes,
                          std::string &error) {
  return bytes == 0 ||
         driver->check(driver->cuMemsetD8(destination, 0, bytes),
                       "cuMemsetD8_v2", error);
}

bool CudaDevice::copyToDeviceAsync(DevicePointer destination,
                                   const void *source, size_t bytes,
                                   StreamHandle stream, std::string &error) {
  return bytes == 0 ||
         driver->check(driver->cuMemcpyHtoDAsync(destination, source, bytes,
                                                 static_cast<CUstream>(stream)),
                       "cuMemcpyHtoDAsync_v2", error);
}

bool CudaDevice::copyToHostAsync(void *destination, DevicePointer source,
                                 size_t bytes, StreamHandle stream,
                                 std::string &error) {
  return bytes == 0 ||
         driver->check(driver->cuMemcpyDtoHAsync(destination, source, bytes,
                                                 static_cast<CUstream>(stream)),
                       "cuMemcpyDtoHAsync_v2", error);
}

bool CudaDevice::copyOnDeviceAsync(DevicePointer destination,
                                   DevicePointer source, size_t bytes,
                                   StreamHandle stream, std::string &error) {
  return bytes == 0 ||
         driver->check(driver->cuMemcpyDtoDAsync(destination, source, bytes,
                                                 static_cast<CUstream>(stream)),
                       "cuMemcpyDtoDAsync_v2", error);
}

bool CudaDevice::fillZeroAsync(DevicePointer destination, size_t bytes,
                               StreamHandle stream, std::string &error) {
  return bytes == 0 ||
         driver->check(driver->cuMemsetD8Async(destination, 0, bytes,
                                               static_cast<CUstream>(stream)),
                       "cuMemsetD8Async", error);
}

bool CudaDevice::createStream(StreamHandle &out, std::string &error) {
  CUstream stream = nullptr;
  if (!driver->check(driver->cuStreamCreate(&stream, CU_STREAM_DEFAULT),
                     "cuStreamCreate", error))
    return false;
  out = stream;
  return true;
}

void CudaDevice::destroyStream(StreamHandle stream) {
  if (stream)
    driver->cuStreamDestroy(static_cast<CUstream>(stream));
}

bool CudaDevice::synchronizeStream(StreamHandle stream, std::string &error) {
  return driver->check(
      driver->cuStreamSynchronize(static_cast<CUstream>(stream)),
      "cuStreamSynchronize", error);
}

/// The JIT log as one line (newlines become "; ").
static std::string oneLine(const char *log) {
  std::string text;
  for (const char *c = log; *c; ++c) {
    if (*c == '\n') {
      if (!text.empty() && text.back() != ' ')
        text += "; ";
    } else if (*c != '\r') {
      text += *c;
    }
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == ';'))
    text.pop_back();
  return text;
}

bool CudaDevice::loadModule(const std::string &image, ModuleHandle &out,
                            std::string &error) {
  out = nullptr;
  // The JIT (PTX) reports why it failed in its error log.
  std::vector<char> errorLog(8192, 0), infoLog(8192, 0);
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog.data(),
                    reinterpret_cast<void *>(uintptr_t(errorLog.size() - 1)),
                    infoLog.data(),
                    reinterpret_cast<void *>(uintptr_t(infoLog.size() - 1))};
  CUmodule module = nullptr;
  CUresult status = driver->cuModuleLoadDataEx(&module, image.data(), 4,
                                               options, values);
  if (status != CUDA_SUCCESS) {
    error = driver->describe("cuModuleLoadDataEx", status);
    std::string log = oneLine(errorLog.data());
    if (!log.empty())
      error += ": " + log;
    return false;
  }
  out = module;
  return true;
}

void CudaDevice::unloadModule(ModuleHandle module) {
  if (module)
    driver->cuModuleUnload(static_cast<CUmodule>(module));
}

bool CudaDevice::getFunction(ModuleHandle module, const std::string &name,
                             FunctionHandle &out, std::string &error) {
  CUfunction function = nullptr;
  if (!driver->check(driver->cuModuleGetFunction(
                         &function, static_cast<CUmodule>(module),
                         name.c_str()),
                     "cuModuleGetFunction", error)) {
    error = "kernel '" + name + "' is not in the binary: " + error;
    return false;
  }
  out = function;
  return true;
}

bool CudaDevice::setMaxDynamicSharedMemory(FunctionHandle function, int bytes,
                                           std::string &error) {
  constexpr int attribute = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
  return driver->check(driver->cuFuncSetAttribute(
                           static_cast<CUfunction>(function), attribute, bytes),
                       "cuFuncSetAttribute", error);
}

bool CudaDevice::launch(FunctionHandle function,
                        const std::array<uint32_t, 3> &grid,
                        const std::array<uint32_t, 3> &block,
                        uint32_t sharedMemoryBytes, void **params,
                        std::string &error, StreamHandle stream) {
  return driver->check(
      driver->cuLaunchKernel(static_cast<CUfunction>(function), grid[0],
                             grid[1], grid[2], block[0], block[1], block[2],
                             sharedMemoryBytes, static_cast<CUstream>(stream),
                             params,
                             /*extra=*/nullptr),
      "cuLaunchKernel", error);
}

bool CudaDevice::synchronize(std::string &error) {
  return driver->check(driver->cuCtxSynchronize(), "cuCtxSynchronize", error);
}

bool CudaDevice::supportsGraphs() const { return driver->hasGraphs(); }

/// The one line for a driver without the graph entry points.
static bool noGraphs(const std::string &path, std::string &error) {
  error = "the CUDA driver " + path +
          " has no CUDA graphs (cuStreamBeginCapture_v2 ... "
          "cuGraphInstantiateWithFlags: CUDA 11.4 or newer)";
  return false;
}

bool CudaDevice::beginCapture(StreamHandle stream, std::string &error) {
  if (!driver->hasGraphs())
    return noGraphs(driver->path, error);
  // Said here rather than by the driver's "operation not permitted": the
  // caller can fix it.
  if (!stream) {
    error = "cannot capture the default stream: CUDA captures only a "
            "stream of its own (cuStreamCreate, torch.cuda.Stream)";
    return false;
  }
  return driver->check(
      driver->cuStreamBeginCapture(static_cast<CUstream>(stream),
                                   CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
      "cuStreamBeginCapture_v2", error);
}

bool CudaDevice::endCapture(StreamHandle stream, GraphHandle &out,
                            std::string &error) {
  out = nullptr;
  if (!driver->hasGraphs())
    return noGraphs(driver->path, error);
  CUgraph graph = nullptr;
  CUresult status =
      driver->cuStreamEndCapture(static_cast<CUstream>(stream), &graph);
  if (!driver->check(status, "cuStreamEndCapture", error)) {
    // An invalidated capture may still hand back a graph; it is no use.
    if (graph)
      driver->cuGraphDestroy(graph);
    return false;
  }
  out = graph;
  return true;
}

bool CudaDevice::isCapturing(StreamHandle stream, bool &capturing,
                             std::string &error) {
  capturing = false;
  if (!driver->cuStreamIsCapturing)
    return true;
  int status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!driver->check(
          driver->cuStreamIsCapturing(static_cast<CUstream>(stream), &status),
          "cuStreamIsCapturing", error))
    return false;
  // Active or invalidated: either way the stream is in a capture.
  capturing = status != CU_STREAM_CAPTURE_STATUS_NONE;
  return true;
}

bool CudaDevice::instantiateGraph(GraphHandle graph, GraphExecHandle &out,
                                  std::string &error) {
  out = nullptr;
  if (!driver->hasGraphs())
    return noGraphs(driver->path, error);
  CUgraphExec exec = nullptr;
  if (!driver->check(driver->cuGraphInstantiateWithFlags(
                         &exec, static_cast<CUgraph>(graph), 0),
                     "cuGraphInstantiateWithFlags", error))
    return false;
  out = exec;
  return true;
}

bool CudaDevice::launchGraph(GraphExecHandle graph, StreamHandle stream,
                             std::string &error) {
  if (!driver->hasGraphs())
    return noGraphs(driver->path, error);
  return driver->check(driver->cuGraphLaunch(static_cast<CUgraphExec>(graph),
                                             static_cast<CUstream>(stream)),
                       "cuGraphLaunch", error);
}

void CudaDevice::destroyGraphExec(GraphExecHandle graph) {
  if (graph && driver->cuGraphExecDestroy)
    driver->cuGraphExecDestroy(static_cast<CUgraphExec>(graph));
}

void CudaDevice::destroyGraph(GraphHandle graph) {
  if (graph && driver->cuGraphDestroy)
    driver->cuGraphDestroy(static_cast<CUgraph>(graph));
}

bool CudaDevice::createEvent(EventHandle &out, std::string &error) {
  CUevent event = nullptr;
  if (!driver->check(driver->cuEventCreate(&event, CU_EVENT_DEFAULT),
                     "cuEventCreate", error))
    return false;
  out = event;
  return true;
}

void CudaDevice::destroyEvent(EventHandle event) {
  if (event)
    driver->cuEventDestroy(static_cast<CUevent>(event));
}

bool CudaDevice::recordEvent(EventHandle event, std::string &error,
                             StreamHandle stream) {
  return driver->check(
      driver->cuEventRecord(static_cast<CUevent>(event),
                            static_cast<CUstream>(stream)),
      "cuEventRecord", error);
}

bool CudaDevice::elapsedMilliseconds(EventHandle start, EventHandle stop,
                                     float &milliseconds, std::string &error) {
  if (!driver->check(driver->cuEventSynchronize(static_cast<CUevent>(stop)),
                     "cuEventSynchronize", error))
    return false;
  return driver->check(
      driver->cuEventElapsedTime(&milliseconds, static_cast<CUevent>(start),
                                 static_cast<CUevent>(stop)),
      "cuEventElapsedTime", error);
}

} // namespace indexpool::runtime
