//===- FakeCuda.cpp - a stand-in libcuda.so.1 for tests without a GPU -----===//
//
// Exports the driver entry points the runtime looks up (Runtime/Cuda.cpp),
// with the same signatures and versioned names, over host memory:
//  - "device memory" is malloc'ed; every copy and kernel access is checked
//    against the allocations (a bad range is CUDA_ERROR_INVALID_VALUE for a
//    copy and a sticky CUDA_ERROR_ILLEGAL_ADDRESS for a kernel, reported by
//    the next synchronization, as a real driver does);
//  - a module is any PTX text with a .version directive or an ELF image; it
//    holds the kernels below whose names appear in it;
//  - kernels run on the host, thread by thread over the launch's grid, so a
//    grid that is too small leaves work undone, as on a GPU;
//  - events read the host clock;
//  - streams are numbered handles (1, 2, ...); work runs at once, in order,
//    whatever the stream, and the asynchronous copies are synchronous.
// Only cuEventElapsedTime (not the CUDA 12.8 _v2) is exported, so the
// runtime's fallback is exercised. Environment: INDEXPOOL_FAKE_CUDA_DEVICES
// (device count, default 1), INDEXPOOL_FAKE_CUDA_CC (compute capability as
// major*10+minor, default 90), INDEXPOOL_FAKE_CUDA_ANY_KERNEL (when set:
// every `.entry` of a PTX module is a kernel, the ones not below no-ops,
// so that a real artifact loads and launches with nothing computed),
// INDEXPOOL_FAKE_CUDA_LOG (when set: one line
// on stderr per allocation, launch, copy, memset, event record and stream
// synchronization, with its stream, "default" or the handle's number, a
// launch's grid, block and integer parameters, and the allocations a copy
// or memset touches, numbered #1, #2, ... in allocation order, so that a
// test sees what the runtime evaluated, where it queued it and which
// memory it read or wrote).
//
// Kernels (parameters in order):
//   indexpool_test_expand(i32 *indices, i32 *tokens, i64 count, i32 P):
//     one thread per index j < count: tokens[j*P+s] = indices[j] < 0 ? -1 :
//     indices[j]*P + s (the PTX in test/Tools/Inputs/launch/expand.ptx);
//   indexpool_test_expand_wrong: the same with tokens[0] off by one;
//   indexpool_test_dequantize_f8(u8 *codes, f32 *scales, f32 *out, i64 rows,
//     i64 dim): one thread per row: out[r, d] = decode(codes[r, d]) *
//     scales[r], rounded to f32;
//   indexpool_test_fault(): an illegal address.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

// cuda.h's opaque handle types: the entry points below have exactly the
// types the runtime calls them with (UBSan's -fsanitize=function checks).
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kNotInitialized = 3;
constexpr CUresult kNoDevice = 100;
constexpr CUresult kInvalidDevice = 101;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kInvalidPtx = 218;
constexpr CUresult kInvalidHandle = 400;
constexpr CUresult kNotFound = 500;
constexpr CUresult kIllegalAddress = 700;

struct ErrorText {
  CUresult code;
  const char *name;
  const char *text;
};
constexpr ErrorText kErrors[] = {
    {kSuccess, "CUDA_SUCCESS", "no error"},
    {kInvalidValue, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {kOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {kNotInitialized, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {kNoDevice, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {kInvalidDevice, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {kInvalidImage, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {kInvalidContext, "CUDA_ERROR_INVALID_CONTEXT",
     "invalid device context"},
    {kInvalidPtx, "CUDA_ERROR_INVALID_PTX",
     "a PTX JIT compilation failed"},
    {kInvalidHandle, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {kNotFound, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {kIllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
};

int environmentInt(const char *name, int fallback) {
  const char *value = std::getenv(name);
  return value && *value ? std::atoi(value) : fallback;
}

struct State {
  std::mutex mutex;
  bool initialized = false;
  std::map<CUdeviceptr, size_t> allocations;
  /// Allocation -> its number in the log.
  std::map<CUdeviceptr, int> allocationNumbers;
  int nextAllocation = 1;
  CUresult sticky = kSuccess;
  std::set<const void *> modules, events;
  /// Stream handle -> its number in the log.
  std::map<const void *, int> streams;
  int nextStream = 1;
};

State &state() {
  static State s;
  return s;
}

/// The calling thread's current context, as the driver keeps it: memory
/// and launches need one (CUDA_ERROR_INVALID_CONTEXT otherwise).
CUctx_st *&currentContext() {
  thread_local CUctx_st *context = nullptr;
  return context;
}

/// Whether [pointer, pointer + bytes) lies inside one allocation.
bool inside(CUdeviceptr pointer, size_t bytes) {
  auto &allocations = state().allocations;
  auto it = allocations.upper_bound(pointer);
  if (it == allocations.begin())
    return bytes == 0;
  --it;
  return pointer >= it->first && pointer - it->first + bytes <= it->second;
}

struct Module {
  std::set<std::string> kernels;
};

/// Whether INDEXPOOL_FAKE_CUDA_LOG asks for the log.
bool logging() {
  static bool enabled = [] {
    const char *value = std::getenv("INDEXPOOL_FAKE_CUDA_LOG");
    return value && *value;
  }();
  return enabled;
}

/// "default", or the number of a created stream ("?" for an unknown one).
/// The caller holds the state's mutex.
std::string streamName(const CUstream_st *stream) {
  if (!stream)
    return "default";
  auto it = state().streams.find(stream);
  return it == state().streams.end() ? "?" : std::to_string(it->second);
}

/// "#N" for the allocation `pointer` starts, "#N+OFFSET" for one it lies
/// inside, "?" otherwise. The caller holds the state's mutex.
std::string allocationName(CUdeviceptr pointer) {
  auto &allocations = state().allocations;
  auto it = allocations.upper_bound(pointer);
  if (it == allocations.begin())
    return "?";
  --it;
  if (pointer - it->first >= it->second)
    return "?";
  std::string name =
      "#" + std::to_string(state().allocationNumbers[it->first]);
  return pointer == it->first
             ? name
             : name + "+" + std::to_string(pointer - it->first);
}

void logLine(const std::string &line) {
  if (logging())
    std::fprintf(stderr, "fake-cuda: %s\n", line.c_str());
}

/// The parameter kinds of each kernel, for the log: 'p' a pointer, 'l' an
/// i64, 'i' an i32.
const char *signatureOf(const std::string &kernel) {
  if (kernel == "indexpool_test_expand" ||
      kernel == "indexpool_test_expand_wrong")
    return "ppli";
  if (kernel == "indexpool_test_dequantize_f8")
    return "pppll";
  return "";
}

constexpr const char *kKernels[] = {
    "indexpool_test_expand", "indexpool_test_expand_wrong",
    "indexpool_test_dequantize_f8", "indexpool_test_fault"};

/// INDEXPOOL_FAKE_CUDA_ANY_KERNEL: a module also holds every other
/// `.entry` of its PTX, which launches as a no-op (logged): for tests of
/// what calls a real artifact's kernels, not of what they compute.
bool anyKernel() { return std::getenv("INDEXPOOL_FAKE_CUDA_ANY_KERNEL"); }

bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/// Whether `image` names `kernel` as a whole identifier.
bool mentions(const std::string &image, const std::string &kernel) {
  for (size_t at = image.find(kernel); at != std::string::npos;
       at = image.find(kernel, at + 1)) {
    bool before = at > 0 && isIdentifierChar(image[at - 1]);
    size_t end = at + kernel.size();
    bool after = end < image.size() && isIdentifierChar(image[end]);
    if (!before && !after)
      return true;
  }
  return false;
}

double decodeF8E4M3FN(uint8_t bits) {
  int sign = bits >> 7, exponent = (bits >> 3) & 0xF, mantissa = bits & 7;
  double value;
  if (exponent == 0xF && mantissa == 7)
    value = NAN;
  else if (exponent == 0)
    value = std::ldexp(mantissa / 8.0, -6);
  else
    value = std::ldexp(1 + mantissa / 8.0, exponent - 7);
  return sign ? -value : value;
}

template <typename T> T param(void **params, int i) {
  T value;
  std::memcpy(&value, params[i], sizeof(T));
  return value;
}

/// Runs a kernel on the host; false for an illegal address.
bool runKernel(const std::string &name, uint64_t threads, void **params) {
  if (name == "indexpool_test_fault")
    return false;
  if (name == "indexpool_test_expand" ||
      name == "indexpool_test_expand_wrong") {
    auto indices = param<CUdeviceptr>(params, 0);
    auto tokens = param<CUdeviceptr>(params, 1);
    auto count = param<int64_t>(params, 2);
    auto p = param<int32_t>(params, 3);
    if (count < 0 || p < 1 || !inside(indices, size_t(count) * 4) ||
        !inside(tokens, size_t(count) * size_t(p) * 4))
      return false;
    auto *in = reinterpret_cast<const int32_t *>(indices);
    auto *out = reinterpret_cast<int32_t *>(tokens);
    for (uint64_t j = 0; j < threads && int64_t(j) < count; ++j)
      for (int32_t s = 0; s < p; ++s)
        out[j * uint64_t(p) + uint64_t(s)] = in[j] < 0 ? -1 : in[j] * p + s;
    if (name == "indexpool_test_expand_wrong" && count > 0 && threads > 0)
      out[0] += 1;
    return true;
  }
  if (name == "indexpool_test_dequantize_f8") {
    auto codes = param<CUdeviceptr>(params, 0);
    auto scales = param<CUdeviceptr>(params, 1);
    auto result = param<CUdeviceptr>(params, 2);
    auto rows = param<int64_t>(params, 3);
    auto dim = param<int64_t>(params, 4);
    if (rows < 0 || dim < 0 || !inside(codes, size_t(rows * dim)) ||
        !inside(scales, size_t(rows) * 4) ||
        !inside(result, size_t(rows * dim) * 4))
      return false;
    auto *q = reinterpret_cast<const uint8_t *>(codes);
    auto *s = reinterpret_cast<const float *>(scales);
    auto *out = reinterpret_cast<float *>(result);
    for (uint64_t r = 0; r < threads && int64_t(r) < rows; ++r)
      for (int64_t d = 0; d < dim; ++d)
        out[r * uint64_t(dim) + uint64_t(d)] =
            float(decodeF8E4M3FN(q[r * uint64_t(dim) + uint64_t(d)]) *
                  double(s[r]));
    return true;
  }
  // Another kernel of a module loaded with INDEXPOOL_FAKE_CUDA_ANY_KERNEL.
  return std::find(std::begin(kKernels), std::end(kKernels), name) ==
         std::end(kKernels);
}

struct Event {
  double milliseconds = 0;
};

double nowMilliseconds() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

#define FAKE_CUDA_API extern "C" __attribute__((visibility("default")))

FAKE_CUDA_API CUresult cuInit(unsigned) {
  if (environmentInt("INDEXPOOL_FAKE_CUDA_DEVICES", 1) <= 0)
    return kNoDevice;
  state().initialized = true;
  return kSuccess;
}

FAKE_CUDA_API CUresult cuDriverGetVersion(int *version) {
  *version = 12040;
  return kSuccess;
}

FAKE_CUDA_API CUresult cuDeviceGetCount(int *count) {
  if (!state().initialized)
    return kNotInitialized;
  *count = environmentInt("INDEXPOOL_FAKE_CUDA_DEVICES", 1);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuDeviceGet(int *device, int ordinal) {
  int count = environmentInt("INDEXPOOL_FAKE_CUDA_DEVICES", 1);
  if (ordinal < 0 || ordinal >= count)
    return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

FAKE_CUDA_API CUresult cuDeviceGetName(char *name, int length, int) {
  std::strncpy(name, "IndexPool fake GPU", size_t(length));
  if (length > 0)
    name[length - 1] = '\0';
  return kSuccess;
}

FAKE_CUDA_API CUresult cuDeviceGetAttribute(int *value, int attribute, int) {
  int cc = environmentInt("INDEXPOOL_FAKE_CUDA_CC", 90);
  // An H100 SXM's values.
  switch (attribute) {
  case 1: // MAX_THREADS_PER_BLOCK
    *value = 1024;
    break;
  case 8: // MAX_SHARED_MEMORY_PER_BLOCK
    *value = 48 * 1024;
    break;
  case 16: // MULTIPROCESSOR_COUNT
    *value = 132;
    break;
  case 36: // MEMORY_CLOCK_RATE (kHz)
    *value = 2619000;
    break;
  case 37: // GLOBAL_MEMORY_BUS_WIDTH
    *value = 5120;
    break;
  case 38: // L2_CACHE_SIZE
    *value = 50 * 1024 * 1024;
    break;
  case 39: // MAX_THREADS_PER_MULTIPROCESSOR
    *value = 2048;
    break;
  case 75: // COMPUTE_CAPABILITY_MAJOR
    *value = cc / 10;
    break;
  case 76: // COMPUTE_CAPABILITY_MINOR
    *value = cc % 10;
    break;
  case 81: // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
    *value = 228 * 1024;
    break;
  case 82: // MAX_REGISTERS_PER_MULTIPROCESSOR
    *value = 65536;
    break;
  case 97: // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    *value = 227 * 1024;
    break;
  case 106: // MAX_BLOCKS_PER_MULTIPROCESSOR
    *value = 32;
    break;
  default:
    return kInvalidValue;
  }
  return kSuccess;
}

FAKE_CUDA_API CUresult cuDeviceTotalMem_v2(size_t *bytes, int) {
  *bytes = size_t(80) << 30;
  return kSuccess;
}

FAKE_CUDA_API CUresult cuDevicePrimaryCtxRetain(CUctx_st **context, int) {
  static int primary;
  *context = reinterpret_cast<CUctx_st *>(&primary);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }
FAKE_CUDA_API CUresult cuCtxSetCurrent(CUctx_st *context) {
  currentContext() = context;
  return kSuccess;
}

FAKE_CUDA_API CUresult cuCtxGetCurrent(CUctx_st **context) {
  *context = currentContext();
  return kSuccess;
}

FAKE_CUDA_API CUresult cuCtxSynchronize() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().sticky;
}

FAKE_CUDA_API CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  if (!currentContext())
    return kInvalidContext;
  if (bytes == 0)
    return kInvalidValue;
  void *memory = std::calloc(1, bytes);
  if (!memory)
    return kOutOfMemory;
  std::lock_guard<std::mutex> lock(state().mutex);
  *pointer = CUdeviceptr(reinterpret_cast<uintptr_t>(memory));
  state().allocations[*pointer] = bytes;
  state().allocationNumbers[*pointer] = state().nextAllocation;
  logLine("alloc " + std::to_string(bytes) + " bytes #" +
          std::to_string(state().nextAllocation++));
  return kSuccess;
}

FAKE_CUDA_API CUresult cuMemFree_v2(CUdeviceptr pointer) {
  std::lock_guard<std::mutex> lock(state().mutex);
  auto it = state().allocations.find(pointer);
  if (it == state().allocations.end())
    return kInvalidValue;
  std::free(reinterpret_cast<void *>(uintptr_t(pointer)));
  state().allocations.erase(it);
  state().allocationNumbers.erase(pointer);
  return kSuccess;
}

// Pinned host memory is plain host memory here.
FAKE_CUDA_API CUresult cuMemHostAlloc(void **pointer, size_t bytes, unsigned) {
  if (!currentContext())
    return kInvalidContext;
  if (bytes == 0)
    return kInvalidValue;
  *pointer = std::calloc(1, bytes);
  if (!*pointer)
    return kOutOfMemory;
  logLine("host alloc " + std::to_string(bytes) + " bytes");
  return kSuccess;
}

FAKE_CUDA_API CUresult cuMemFreeHost(void *pointer) {
  std::free(pointer);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuMemcpyHtoD_v2(CUdeviceptr destination,
                                       const void *source, size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!inside(destination, bytes))
    return kInvalidValue;
  std::memcpy(reinterpret_cast<void *>(uintptr_t(destination)), source, bytes);
  return state().sticky;
}

FAKE_CUDA_API CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source,
                                       size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!inside(source, bytes))
    return kInvalidValue;
  std::memcpy(destination, reinterpret_cast<void *>(uintptr_t(source)), bytes);
  return state().sticky;
}

FAKE_CUDA_API CUresult cuMemcpyDtoD_v2(CUdeviceptr destination,
                                       CUdeviceptr source, size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!inside(source, bytes) || !inside(destination, bytes))
    return kInvalidValue;
  std::memmove(reinterpret_cast<void *>(uintptr_t(destination)),
               reinterpret_cast<void *>(uintptr_t(source)), bytes);
  return state().sticky;
}

FAKE_CUDA_API CUresult cuMemsetD8_v2(CUdeviceptr destination,
                                     unsigned char value, size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!inside(destination, bytes))
    return kInvalidValue;
  std::memset(reinterpret_cast<void *>(uintptr_t(destination)), value, bytes);
  return state().sticky;
}

// The stream variants: the same work, done at once, logged with the stream.
FAKE_CUDA_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination,
                                            const void *source, size_t bytes,
                                            CUstream_st *stream) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    logLine("memcpy HtoD " + std::to_string(bytes) + " bytes stream=" +
            streamName(stream) + " to=" + allocationName(destination));
  }
  return cuMemcpyHtoD_v2(destination, source, bytes);
}

FAKE_CUDA_API CUresult cuMemcpyDtoHAsync_v2(void *destination,
                                            CUdeviceptr source, size_t bytes,
                                            CUstream_st *stream) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    logLine("memcpy DtoH " + std::to_string(bytes) + " bytes stream=" +
            streamName(stream) + " from=" + allocationName(source));
  }
  return cuMemcpyDtoH_v2(destination, source, bytes);
}

FAKE_CUDA_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr destination,
                                            CUdeviceptr source, size_t bytes,
                                            CUstream_st *stream) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    logLine("memcpy DtoD " + std::to_string(bytes) + " bytes stream=" +
            streamName(stream) + " from=" + allocationName(source) +
            " to=" + allocationName(destination));
  }
  return cuMemcpyDtoD_v2(destination, source, bytes);
}

FAKE_CUDA_API CUresult cuMemsetD8Async(CUdeviceptr destination,
                                       unsigned char value, size_t bytes,
                                       CUstream_st *stream) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    logLine("memset " + std::to_string(bytes) + " bytes stream=" +
            streamName(stream) + " to=" + allocationName(destination));
  }
  return cuMemsetD8_v2(destination, value, bytes);
}

FAKE_CUDA_API CUresult cuStreamCreate(CUstream_st **stream, unsigned) {
  auto *handle = new char();
  std::lock_guard<std::mutex> lock(state().mutex);
  state().streams[handle] = state().nextStream++;
  *stream = reinterpret_cast<CUstream_st *>(handle);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuStreamDestroy_v2(CUstream_st *stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().streams.erase(stream))
    return kInvalidHandle;
  delete reinterpret_cast<char *>(stream);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuStreamSynchronize(CUstream_st *stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (stream && !state().streams.count(stream))
    return kInvalidHandle;
  logLine("synchronize stream=" + streamName(stream));
  return state().sticky;
}

FAKE_CUDA_API CUresult cuModuleLoadDataEx(CUmod_st **module, const void *image,
                                          unsigned numOptions, int *options,
                                          void **values) {
  const char *bytes = static_cast<const char *>(image);
  std::string text;
  if (std::memcmp(bytes, "\x7f" "ELF", 4) == 0) {
    // ELF64: the file ends with the section or the program header table.
    uint64_t shoff, phoff;
    uint16_t shentsize, shnum, phentsize, phnum;
    std::memcpy(&phoff, bytes + 0x20, 8);
    std::memcpy(&shoff, bytes + 0x28, 8);
    std::memcpy(&phentsize, bytes + 0x36, 2);
    std::memcpy(&phnum, bytes + 0x38, 2);
    std::memcpy(&shentsize, bytes + 0x3A, 2);
    std::memcpy(&shnum, bytes + 0x3C, 2);
    uint64_t size = std::max<uint64_t>(shoff + uint64_t(shentsize) * shnum,
                                       phoff + uint64_t(phentsize) * phnum);
    text.assign(bytes, size_t(size));
  } else {
    text = bytes;
    if (text.find(".version") == std::string::npos) {
      // What ptxas writes for text that is not PTX.
      for (unsigned i = 0; i + 1 < numOptions; ++i)
        if (options[i] == 5 && options[i + 1] == 6) // error log, its size
          std::strncpy(static_cast<char *>(values[i]),
                       "ptxas application ptx input, line 1; fatal   : "
                       "Missing .version directive at start of file\n"
                       "ptxas fatal   : Ptx assembly aborted due to errors\n",
                       size_t(reinterpret_cast<uintptr_t>(values[i + 1])));
      return kInvalidPtx;
    }
  }
  auto *result = new Module();
  for (const char *kernel : kKernels)
    if (mentions(text, kernel))
      result->kernels.insert(kernel);
  if (anyKernel())
    for (size_t at = text.find(".entry "); at != std::string::npos;
         at = text.find(".entry ", at + 1)) {
      size_t begin = at + 7, end = begin;
      while (end < text.size() && isIdentifierChar(text[end]))
        ++end;
      if (end > begin)
        result->kernels.insert(text.substr(begin, end - begin));
    }
  std::lock_guard<std::mutex> lock(state().mutex);
  state().modules.insert(result);
  *module = reinterpret_cast<CUmod_st *>(result);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuModuleUnload(CUmod_st *module) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().modules.erase(module))
    return kInvalidHandle;
  delete reinterpret_cast<Module *>(module);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuModuleGetFunction(CUfunc_st **function,
                                           CUmod_st *module, const char *name) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().modules.count(module))
    return kInvalidHandle;
  auto &kernels = reinterpret_cast<Module *>(module)->kernels;
  auto it = kernels.find(name);
  if (it == kernels.end())
    return kNotFound;
  // The handle is the (stable) name stored in the module.
  *function = reinterpret_cast<CUfunc_st *>(const_cast<std::string *>(&*it));
  return kSuccess;
}

FAKE_CUDA_API CUresult cuFuncSetAttribute(CUfunc_st *, int, int) {
  return kSuccess;
}

FAKE_CUDA_API CUresult cuLaunchKernel(CUfunc_st *function, unsigned gridX,
                                      unsigned gridY, unsigned gridZ,
                                      unsigned blockX, unsigned blockY,
                                      unsigned blockZ, unsigned,
                                      CUstream_st *stream, void **params,
                                      void **extra) {
  if (!currentContext())
    return kInvalidContext;
  if (!function || extra ||
      uint64_t(blockX) * blockY * blockZ > 1024 || !gridX ||
      !gridY || !gridZ || !blockX || !blockY || !blockZ)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state().mutex);
  if (stream && !state().streams.count(stream))
    return kInvalidHandle;
  if (state().sticky != kSuccess)
    return state().sticky;
  const std::string &name = *reinterpret_cast<const std::string *>(function);
  if (logging()) {
    std::string line = "launch " + name + " grid=[" + std::to_string(gridX) +
                       "," + std::to_string(gridY) + "," +
                       std::to_string(gridZ) + "] block=[" +
                       std::to_string(blockX) + "," + std::to_string(blockY) +
                       "," + std::to_string(blockZ) + "] params=[";
    const char *signature = signatureOf(name);
    std::string memory;
    for (int i = 0; signature[i]; ++i) {
      line += i ? ", " : "";
      if (signature[i] == 'p') {
        line += "ptr";
        memory += (memory.empty() ? "" : ", ") +
                  allocationName(param<CUdeviceptr>(params, i));
      } else if (signature[i] == 'l') {
        line += std::to_string(param<int64_t>(params, i));
      } else {
        line += std::to_string(param<int32_t>(params, i));
      }
    }
    // The allocations last: "params=[ptr, ...] stream=S" reads as before.
    logLine(line + "] stream=" + streamName(stream) + " memory=[" + memory +
            "]");
  }
  // Blocks fit in 64 bits (< 2^63); threads may not (up to 2^73): saturate,
  // the kernels stop at their own element counts anyway.
  uint64_t blocks = uint64_t(gridX) * gridY * gridZ;
  uint64_t perBlock = uint64_t(blockX) * blockY * blockZ;
  uint64_t threads = blocks > UINT64_MAX / perBlock ? UINT64_MAX
                                                    : blocks * perBlock;
  if (!runKernel(name, threads, params))
    state().sticky = kIllegalAddress;
  return kSuccess;
}

FAKE_CUDA_API CUresult cuEventCreate(CUevent_st **event, unsigned) {
  auto *result = new Event();
  std::lock_guard<std::mutex> lock(state().mutex);
  state().events.insert(result);
  *event = reinterpret_cast<CUevent_st *>(result);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuEventRecord(CUevent_st *event, CUstream_st *stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.count(event) ||
      (stream && !state().streams.count(stream)))
    return kInvalidHandle;
  logLine("event record stream=" + streamName(stream));
  reinterpret_cast<Event *>(event)->milliseconds = nowMilliseconds();
  return state().sticky;
}

FAKE_CUDA_API CUresult cuEventSynchronize(CUevent_st *event) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.count(event))
    return kInvalidHandle;
  return state().sticky;
}

FAKE_CUDA_API CUresult cuEventElapsedTime(float *milliseconds,
                                          CUevent_st *start, CUevent_st *stop) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.count(start) || !state().events.count(stop))
    return kInvalidHandle;
  *milliseconds = float(reinterpret_cast<Event *>(stop)->milliseconds -
                        reinterpret_cast<Event *>(start)->milliseconds);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuEventDestroy_v2(CUevent_st *event) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.erase(event))
    return kInvalidHandle;
  delete reinterpret_cast<Event *>(event);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuGetErrorString(CUresult code, const char **text) {
  for (const ErrorText &e : kErrors)
    if (e.code == code) {
      *text = e.text;
      return kSuccess;
    }
  *text = nullptr;
  return kInvalidValue;
}

FAKE_CUDA_API CUresult cuGetErrorName(CUresult code, const char **name) {
  for (const ErrorText &e : kErrors)
    if (e.code == code) {
      *name = e.name;
      return kSuccess;
    }
  *name = nullptr;
  return kInvalidValue;
}
