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
//    whatever the stream, and the asynchronous copies are synchronous;
//  - CUDA graphs by stream capture, as the driver has them: the launches
//    (their parameters copied, sized from the signatures below or the PTX
//    `.entry` parameter list), copies, memsets and event records issued to
//    a capturing stream are recorded, not run; cuGraphLaunch runs them in
//    order, logged as when run directly. What the real driver refuses
//    during a capture is refused, and the capture invalidated (its
//    cuStreamEndCapture then fails): allocations, frees, synchronous copies
//    and memsets and cuCtxSynchronize on a thread the capture's mode
//    covers, synchronizing the capturing stream
//    (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED), work on or synchronization
//    of the legacy default stream while any capture runs
//    (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT), waiting on an event recorded in
//    a capture (CUDA_ERROR_CAPTURED_EVENT), and, stricter than a driver
//    may be, a captured copy through host memory that is not pinned
//    (cuMemHostAlloc): a replay would read or write it long after.
// Only cuEventElapsedTime (not the CUDA 12.8 _v2) is exported, so the
// runtime's fallback is exercised. Environment: INDEXPOOL_FAKE_CUDA_DEVICES
// (device count, default 1), INDEXPOOL_FAKE_CUDA_CC (compute capability as
// major*10+minor, default 90), INDEXPOOL_FAKE_CUDA_ANY_KERNEL (when set:
// every `.entry` of a PTX module is a kernel, the ones not below no-ops,
// so that a real artifact loads and launches with nothing computed),
// INDEXPOOL_FAKE_CUDA_LOG (when set: one line
// on stderr per allocation, free, launch, copy, memset, event record,
// stream synchronization, capture begin / end / invalidation (work
// recorded in a capture is logged as "capture: launch ...") and graph
// launch, with its stream, "default" or the handle's number, a
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
#include <cctype>
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
#include <thread>
#include <vector>

// cuda.h's opaque handle types: the entry points below have exactly the
// types the runtime calls them with (UBSan's -fsanitize=function checks).
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
struct CUgraph_st;
struct CUgraphExec_st;

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
constexpr CUresult kIllegalState = 401;
constexpr CUresult kIllegalAddress = 700;
constexpr CUresult kNotSupported = 801;
constexpr CUresult kCaptureUnsupported = 900;
constexpr CUresult kCaptureInvalidated = 901;
constexpr CUresult kCaptureImplicit = 906;
constexpr CUresult kCapturedEvent = 907;
constexpr CUresult kCaptureWrongThread = 908;

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
    {kIllegalState, "CUDA_ERROR_ILLEGAL_STATE",
     "the operation cannot be performed in the present state"},
    {kIllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {kNotSupported, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {kCaptureUnsupported, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {kCaptureInvalidated, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
    {kCaptureImplicit, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
     "operation would make the legacy stream depend on a capturing blocking "
     "stream"},
    {kCapturedEvent, "CUDA_ERROR_CAPTURED_EVENT",
     "operation not permitted on an event last recorded in a capturing "
     "stream"},
    {kCaptureWrongThread, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
     "attempt to terminate a thread-local capture sequence from another "
     "thread"},
};

/// A kernel of a module: the function handle points to it. Its parameters'
/// sizes, when known, let a capture copy them as the driver does.
struct Kernel {
  std::string name;
  std::vector<size_t> paramSizes;
  bool sizesKnown = false;
};

/// One piece of work recorded by a capture.
struct Node {
  enum class Kind { Launch, Copy, Memset, Event } kind = Kind::Launch;
  const Kernel *kernel = nullptr;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::vector<std::vector<unsigned char>> params;
  // A copy: 'H' host to device, 'D' device to host, 'd' device to device.
  char direction = 'd';
  CUdeviceptr destination = 0, source = 0;
  void *hostDestination = nullptr;
  const void *hostSource = nullptr;
  size_t bytes = 0;
  unsigned char value = 0;
  CUevent_st *event = nullptr;
};

/// A stream's capture in progress. Modes: 0 global, 1 thread-local,
/// 2 relaxed (CUstreamCaptureMode).
struct Capture {
  int mode = 0;
  std::thread::id thread;
  bool invalidated = false;
  std::vector<Node> nodes;
};

/// A captured graph, and an instantiated one: the nodes in stream order.
struct Graph {
  std::vector<Node> nodes;
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
  /// Pinned host memory (cuMemHostAlloc): start -> bytes.
  std::map<uintptr_t, size_t> pinned;
  /// Capturing stream -> its capture.
  std::map<const void *, Capture> captures;
  std::set<const void *> graphs, graphExecs;
  /// Events whose last record was captured.
  std::set<const void *> capturedEvents;
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
  std::map<std::string, Kernel> kernels;
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

/// Whether [pointer, pointer + bytes) lies in pinned host memory. The
/// caller holds the state's mutex.
bool pinnedHost(const void *pointer, size_t bytes) {
  auto &pinned = state().pinned;
  uintptr_t at = reinterpret_cast<uintptr_t>(pointer);
  auto it = pinned.upper_bound(at);
  if (it == pinned.begin())
    return false;
  --it;
  return at - it->first + bytes <= it->second;
}

/// The sizes of `entry`'s parameters in PTX `text` (its `.entry NAME(...)`
/// list); false when a parameter's type is not one of the PTX scalars or
/// .b8 arrays (the kernel then cannot be captured).
bool ptxParamSizes(const std::string &text, size_t entryAt,
                   std::vector<size_t> &sizes) {
  size_t open = text.find_first_of("({", entryAt);
  if (open == std::string::npos || text[open] == '{')
    return true; // no parameter list
  size_t close = text.find(')', open);
  if (close == std::string::npos)
    return false;
  std::string list = text.substr(open + 1, close - open - 1);
  for (size_t at = list.find(".param"); at != std::string::npos;
       at = list.find(".param", at + 1)) {
    // The tokens after .param: [.align N] .TYPE [.ptr ...] NAME[[N]].
    size_t end = list.find(',', at);
    std::string declaration = list.substr(at, end == std::string::npos
                                                  ? std::string::npos
                                                  : end - at);
    std::vector<std::string> tokens;
    for (size_t i = 0; i < declaration.size();) {
      while (i < declaration.size() && std::isspace((unsigned char)declaration[i]))
        ++i;
      size_t j = i;
      while (j < declaration.size() && !std::isspace((unsigned char)declaration[j]))
        ++j;
      if (j > i)
        tokens.push_back(declaration.substr(i, j - i));
      i = j;
    }
    size_t t = 1;
    if (t < tokens.size() && tokens[t] == ".align")
      t += 2;
    if (t >= tokens.size() || tokens[t].size() < 3)
      return false;
    const std::string &type = tokens[t];
    char kind = type[1];
    int bits = std::atoi(type.c_str() + 2);
    if ((kind != 'u' && kind != 's' && kind != 'b' && kind != 'f') ||
        (bits != 8 && bits != 16 && bits != 32 && bits != 64))
      return false;
    size_t count = 1;
    const std::string &name = tokens.back();
    if (size_t bracket = name.find('['); bracket != std::string::npos)
      count = size_t(std::atoll(name.c_str() + bracket + 1));
    sizes.push_back(size_t(bits / 8) * count);
  }
  return true;
}

/// The log's text of a launch's parameters: the test kernels' by their
/// signature ("ptr" for a pointer), another kernel's by its sizes (a
/// 64-bit value inside an allocation as that allocation, "#N" or
/// "#N+OFFSET"). The caller holds the state's mutex.
std::string paramsText(const Kernel &kernel, void **params,
                       std::string &memory) {
  std::string text;
  const char *signature = signatureOf(kernel.name);
  if (*signature) {
    for (int i = 0; signature[i]; ++i) {
      text += i ? ", " : "";
      if (signature[i] == 'p') {
        text += "ptr";
        memory += (memory.empty() ? "" : ", ") +
                  allocationName(param<CUdeviceptr>(params, i));
      } else if (signature[i] == 'l') {
        text += std::to_string(param<int64_t>(params, i));
      } else {
        text += std::to_string(param<int32_t>(params, i));
      }
    }
    return text;
  }
  if (!kernel.sizesKnown || !params)
    return text;
  for (size_t i = 0; i < kernel.paramSizes.size(); ++i) {
    text += i ? ", " : "";
    if (kernel.paramSizes[i] == 8) {
      auto value = param<uint64_t>(params, int(i));
      std::string name = allocationName(CUdeviceptr(value));
      text += name != "?" ? name : std::to_string(int64_t(value));
    } else if (kernel.paramSizes[i] == 4) {
      text += std::to_string(param<int32_t>(params, int(i)));
    } else {
      text += std::to_string(kernel.paramSizes[i]) + "B";
    }
  }
  return text;
}

/// Runs a launch (logged with `prefix`); the caller holds the mutex.
void runLaunch(const Kernel &kernel, const unsigned grid[3],
               const unsigned block[3], CUstream_st *stream, void **params) {
  if (logging()) {
    std::string memory;
    std::string line = "launch " + kernel.name + " grid=[" +
                       std::to_string(grid[0]) + "," + std::to_string(grid[1]) +
                       "," + std::to_string(grid[2]) + "] block=[" +
                       std::to_string(block[0]) + "," +
                       std::to_string(block[1]) + "," +
                       std::to_string(block[2]) + "] params=[" +
                       paramsText(kernel, params, memory);
    // The allocations last: "params=[ptr, ...] stream=S" reads as before.
    logLine(line + "] stream=" + streamName(stream) + " memory=[" + memory +
            "]");
  }
  // Blocks fit in 64 bits (< 2^63); threads may not (up to 2^73): saturate,
  // the kernels stop at their own element counts anyway.
  uint64_t blocks = uint64_t(grid[0]) * grid[1] * grid[2];
  uint64_t perBlock = uint64_t(block[0]) * block[1] * block[2];
  uint64_t threads = blocks > UINT64_MAX / perBlock ? UINT64_MAX
                                                    : blocks * perBlock;
  if (!runKernel(kernel.name, threads, params))
    state().sticky = kIllegalAddress;
}

/// A copy's work (bounds checked); the caller holds the mutex.
CUresult runCopy(char direction, CUdeviceptr destination, CUdeviceptr source,
                 void *hostDestination, const void *hostSource, size_t bytes) {
  if (direction == 'H') {
    if (!inside(destination, bytes))
      return kInvalidValue;
    std::memcpy(reinterpret_cast<void *>(uintptr_t(destination)), hostSource,
                bytes);
  } else if (direction == 'D') {
    if (!inside(source, bytes))
      return kInvalidValue;
    std::memcpy(hostDestination, reinterpret_cast<void *>(uintptr_t(source)),
                bytes);
  } else {
    if (!inside(source, bytes) || !inside(destination, bytes))
      return kInvalidValue;
    std::memmove(reinterpret_cast<void *>(uintptr_t(destination)),
                 reinterpret_cast<void *>(uintptr_t(source)), bytes);
  }
  return state().sticky;
}

CUresult runMemset(CUdeviceptr destination, unsigned char value,
                   size_t bytes) {
  if (!inside(destination, bytes))
    return kInvalidValue;
  std::memset(reinterpret_cast<void *>(uintptr_t(destination)), value, bytes);
  return state().sticky;
}

std::string copyLine(const Node &node, CUstream_st *stream) {
  const char *what = node.direction == 'H'   ? "HtoD"
                     : node.direction == 'D' ? "DtoH"
                                             : "DtoD";
  std::string line = std::string("memcpy ") + what + " " +
                     std::to_string(node.bytes) + " bytes stream=" +
                     streamName(stream);
  if (node.direction != 'H')
    line += " from=" + allocationName(node.source);
  if (node.direction != 'D')
    line += " to=" + allocationName(node.destination);
  return line;
}

/// Runs a node on `stream` as the direct call would, logged the same way.
/// The caller holds the mutex.
CUresult runNode(const Node &node, CUstream_st *stream) {
  switch (node.kind) {
  case Node::Kind::Launch: {
    std::vector<void *> pointers;
    for (const auto &value : node.params)
      pointers.push_back(const_cast<unsigned char *>(value.data()));
    if (state().sticky != kSuccess)
      return state().sticky;
    runLaunch(*node.kernel, node.grid, node.block, stream,
              pointers.empty() ? nullptr : pointers.data());
    return kSuccess;
  }
  case Node::Kind::Copy:
    logLine(copyLine(node, stream));
    return runCopy(node.direction, node.destination, node.source,
                   node.hostDestination, node.hostSource, node.bytes);
  case Node::Kind::Memset:
    logLine("memset " + std::to_string(node.bytes) + " bytes stream=" +
            streamName(stream) + " to=" + allocationName(node.destination));
    return runMemset(node.destination, node.value, node.bytes);
  case Node::Kind::Event:
    logLine("event record stream=" + streamName(stream));
    if (state().events.count(node.event)) {
      reinterpret_cast<Event *>(node.event)->milliseconds = nowMilliseconds();
      state().capturedEvents.erase(node.event); // recorded by a replay
    }
    return state().sticky;
  }
  return kInvalidValue;
}

/// Invalidates `capture` because of `call`, logged.
void invalidate(const void *stream, Capture &capture, const char *call) {
  if (!capture.invalidated)
    logLine(std::string("capture invalidated stream=") +
            streamName(static_cast<const CUstream_st *>(stream)) + " by " +
            call);
  capture.invalidated = true;
}

/// A call the driver refuses during a capture whose mode covers this
/// thread (an allocation, a synchronization, a synchronous copy): 0 when
/// there is none, else the error, every such capture invalidated. The
/// caller holds the mutex.
CUresult refuseDuringCapture(const char *call) {
  CUresult result = kSuccess;
  for (auto &[stream, capture] : state().captures)
    if (capture.mode == 0 ||
        (capture.mode == 1 && capture.thread == std::this_thread::get_id())) {
      invalidate(stream, capture, call);
      result = kCaptureUnsupported;
    }
  return result;
}

/// Work on the legacy default stream waits for every blocking stream: while
/// one captures, that is an error, and the captures are invalidated.
CUresult refuseLegacyStream(const char *call) {
  if (state().captures.empty())
    return kSuccess;
  for (auto &[stream, capture] : state().captures)
    invalidate(stream, capture, call);
  return kCaptureImplicit;
}

/// Issues `node` on `stream`: recorded when the stream captures, run
/// otherwise. The caller holds the mutex (and logged a direct call).
CUresult issue(Node node, CUstream_st *stream, const char *call) {
  // A stream the fake does not know is not checked here (copies never
  // were); launches and event records check it first.
  if (!stream)
    if (CUresult refused = refuseLegacyStream(call))
      return refused;
  auto capture = stream ? state().captures.find(stream)
                        : state().captures.end();
  if (capture == state().captures.end())
    return runNode(node, stream);
  if (capture->second.invalidated)
    return kCaptureInvalidated;
  if (node.kind == Node::Kind::Copy &&
      ((node.direction == 'H' && !pinnedHost(node.hostSource, node.bytes)) ||
       (node.direction == 'D' &&
        !pinnedHost(node.hostDestination, node.bytes)))) {
    invalidate(stream, capture->second, call);
    return kCaptureUnsupported;
  }
  if (node.kind == Node::Kind::Event)
    state().capturedEvents.insert(node.event);
  if (logging()) {
    std::string line;
    if (node.kind == Node::Kind::Launch) {
      std::vector<void *> pointers;
      for (const auto &value : node.params)
        pointers.push_back(const_cast<unsigned char *>(value.data()));
      std::string memory;
      line = "launch " + node.kernel->name + " params=[" +
             paramsText(*node.kernel, pointers.data(), memory) + "]";
    } else if (node.kind == Node::Kind::Copy) {
      line = copyLine(node, stream);
    } else if (node.kind == Node::Kind::Memset) {
      line = "memset " + std::to_string(node.bytes) + " bytes to=" +
             allocationName(node.destination);
    } else {
      line = "event record";
    }
    logLine("capture: " + line + " stream=" + streamName(stream));
  }
  capture->second.nodes.push_back(std::move(node));
  return kSuccess;
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
  if (CUresult refused = refuseDuringCapture("cuCtxSynchronize"))
    return refused;
  return state().sticky;
}

FAKE_CUDA_API CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  if (!currentContext())
    return kInvalidContext;
  if (bytes == 0)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state().mutex);
  if (CUresult refused = refuseDuringCapture("cuMemAlloc_v2"))
    return refused;
  void *memory = std::calloc(1, bytes);
  if (!memory)
    return kOutOfMemory;
  *pointer = CUdeviceptr(reinterpret_cast<uintptr_t>(memory));
  state().allocations[*pointer] = bytes;
  state().allocationNumbers[*pointer] = state().nextAllocation;
  logLine("alloc " + std::to_string(bytes) + " bytes #" +
          std::to_string(state().nextAllocation++));
  return kSuccess;
}

FAKE_CUDA_API CUresult cuMemFree_v2(CUdeviceptr pointer) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (CUresult refused = refuseDuringCapture("cuMemFree_v2"))
    return refused;
  auto it = state().allocations.find(pointer);
  if (it == state().allocations.end())
    return kInvalidValue;
  logLine("free " + allocationName(pointer));
  std::free(reinterpret_cast<void *>(uintptr_t(pointer)));
  state().allocations.erase(it);
  state().allocationNumbers.erase(pointer);
  return kSuccess;
}

// Pinned host memory is plain host memory here, remembered as pinned.
FAKE_CUDA_API CUresult cuMemHostAlloc(void **pointer, size_t bytes, unsigned) {
  if (!currentContext())
    return kInvalidContext;
  if (bytes == 0)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state().mutex);
  if (CUresult refused = refuseDuringCapture("cuMemHostAlloc"))
    return refused;
  *pointer = std::calloc(1, bytes);
  if (!*pointer)
    return kOutOfMemory;
  state().pinned[reinterpret_cast<uintptr_t>(*pointer)] = bytes;
  logLine("host alloc " + std::to_string(bytes) + " bytes");
  return kSuccess;
}

FAKE_CUDA_API CUresult cuMemFreeHost(void *pointer) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (CUresult refused = refuseDuringCapture("cuMemFreeHost"))
    return refused;
  state().pinned.erase(reinterpret_cast<uintptr_t>(pointer));
  std::free(pointer);
  return kSuccess;
}

// The synchronous copies and memset wait for the legacy default stream:
// never allowed while capturing.
FAKE_CUDA_API CUresult cuMemcpyHtoD_v2(CUdeviceptr destination,
                                       const void *source, size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (CUresult refused = refuseDuringCapture("cuMemcpyHtoD_v2"))
    return refused;
  return runCopy('H', destination, 0, nullptr, source, bytes);
}

FAKE_CUDA_API CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source,
                                       size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (CUresult refused = refuseDuringCapture("cuMemcpyDtoH_v2"))
    return refused;
  return runCopy('D', 0, source, destination, nullptr, bytes);
}

FAKE_CUDA_API CUresult cuMemcpyDtoD_v2(CUdeviceptr destination,
                                       CUdeviceptr source, size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (CUresult refused = refuseDuringCapture("cuMemcpyDtoD_v2"))
    return refused;
  return runCopy('d', destination, source, nullptr, nullptr, bytes);
}

FAKE_CUDA_API CUresult cuMemsetD8_v2(CUdeviceptr destination,
                                     unsigned char value, size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (CUresult refused = refuseDuringCapture("cuMemsetD8_v2"))
    return refused;
  return runMemset(destination, value, bytes);
}

// The stream variants: the same work, done at once (or recorded by a
// capture), logged with the stream.
static Node copyNode(char direction, CUdeviceptr destination,
                     CUdeviceptr source, void *hostDestination,
                     const void *hostSource, size_t bytes) {
  Node node;
  node.kind = Node::Kind::Copy;
  node.direction = direction;
  node.destination = destination;
  node.source = source;
  node.hostDestination = hostDestination;
  node.hostSource = hostSource;
  node.bytes = bytes;
  return node;
}

FAKE_CUDA_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination,
                                            const void *source, size_t bytes,
                                            CUstream_st *stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return issue(copyNode('H', destination, 0, nullptr, source, bytes), stream,
               "cuMemcpyHtoDAsync_v2");
}

FAKE_CUDA_API CUresult cuMemcpyDtoHAsync_v2(void *destination,
                                            CUdeviceptr source, size_t bytes,
                                            CUstream_st *stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return issue(copyNode('D', 0, source, destination, nullptr, bytes), stream,
               "cuMemcpyDtoHAsync_v2");
}

FAKE_CUDA_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr destination,
                                            CUdeviceptr source, size_t bytes,
                                            CUstream_st *stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return issue(copyNode('d', destination, source, nullptr, nullptr, bytes),
               stream, "cuMemcpyDtoDAsync_v2");
}

FAKE_CUDA_API CUresult cuMemsetD8Async(CUdeviceptr destination,
                                       unsigned char value, size_t bytes,
                                       CUstream_st *stream) {
  Node node;
  node.kind = Node::Kind::Memset;
  node.destination = destination;
  node.value = value;
  node.bytes = bytes;
  std::lock_guard<std::mutex> lock(state().mutex);
  return issue(std::move(node), stream, "cuMemsetD8Async");
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
  state().captures.erase(stream);
  delete reinterpret_cast<char *>(stream);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuStreamSynchronize(CUstream_st *stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (stream && !state().streams.count(stream))
    return kInvalidHandle;
  if (!stream) {
    if (CUresult refused = refuseLegacyStream("cuStreamSynchronize"))
      return refused;
  } else if (auto capture = state().captures.find(stream);
             capture != state().captures.end()) {
    // Nothing of a capture has run: waiting for it cannot be done.
    invalidate(stream, capture->second, "cuStreamSynchronize");
    return kCaptureUnsupported;
  }
  logLine("synchronize stream=" + streamName(stream));
  return state().sticky;
}

FAKE_CUDA_API CUresult cuStreamBeginCapture_v2(CUstream_st *stream, int mode) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!stream)
    return kCaptureUnsupported; // the legacy stream cannot be captured
  if (!state().streams.count(stream))
    return kInvalidHandle;
  if (mode < 0 || mode > 2)
    return kInvalidValue;
  if (state().captures.count(stream))
    return kIllegalState;
  Capture &capture = state().captures[stream];
  capture.mode = mode;
  capture.thread = std::this_thread::get_id();
  logLine("capture begin stream=" + streamName(stream) + " mode=" +
          (mode == 0 ? "global" : mode == 1 ? "thread-local" : "relaxed"));
  return kSuccess;
}

FAKE_CUDA_API CUresult cuStreamEndCapture(CUstream_st *stream,
                                          CUgraph_st **graph) {
  std::lock_guard<std::mutex> lock(state().mutex);
  *graph = nullptr;
  auto it = state().captures.find(stream);
  if (it == state().captures.end())
    return kIllegalState;
  if (it->second.mode != 2 && it->second.thread != std::this_thread::get_id())
    return kCaptureWrongThread;
  Capture capture = std::move(it->second);
  state().captures.erase(it);
  logLine("capture end stream=" + streamName(stream) + " nodes=" +
          std::to_string(capture.nodes.size()) +
          (capture.invalidated ? " invalidated" : ""));
  if (capture.invalidated)
    return kCaptureInvalidated;
  auto *result = new Graph{std::move(capture.nodes)};
  state().graphs.insert(result);
  *graph = reinterpret_cast<CUgraph_st *>(result);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuStreamIsCapturing(CUstream_st *stream, int *status) {
  std::lock_guard<std::mutex> lock(state().mutex);
  *status = 0;
  if (!stream)
    return state().captures.empty() ? kSuccess : kCaptureImplicit;
  if (!state().streams.count(stream))
    return kInvalidHandle;
  auto it = state().captures.find(stream);
  if (it != state().captures.end())
    *status = it->second.invalidated ? 2 : 1;
  return kSuccess;
}

FAKE_CUDA_API CUresult cuGraphInstantiateWithFlags(CUgraphExec_st **exec,
                                                   CUgraph_st *graph,
                                                   unsigned long long) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().graphs.count(graph))
    return kInvalidHandle;
  auto *result = new Graph(*reinterpret_cast<Graph *>(graph));
  state().graphExecs.insert(result);
  *exec = reinterpret_cast<CUgraphExec_st *>(result);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuGraphLaunch(CUgraphExec_st *exec,
                                     CUstream_st *stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().graphExecs.count(exec) ||
      (stream && !state().streams.count(stream)))
    return kInvalidHandle;
  const Graph &graph = *reinterpret_cast<Graph *>(exec);
  if (!stream) {
    if (CUresult refused = refuseLegacyStream("cuGraphLaunch"))
      return refused;
  } else if (auto capture = state().captures.find(stream);
             capture != state().captures.end()) {
    // A graph launched into a capture joins it.
    for (const Node &node : graph.nodes)
      capture->second.nodes.push_back(node);
    logLine("capture: graph launch nodes=" + std::to_string(graph.nodes.size()) +
            " stream=" + streamName(stream));
    return kSuccess;
  }
  logLine("graph launch nodes=" + std::to_string(graph.nodes.size()) +
          " stream=" + streamName(stream));
  for (const Node &node : graph.nodes)
    if (CUresult result = runNode(node, stream); result != kSuccess) {
      // A node's failure shows at the next synchronization, as a kernel's.
      if (state().sticky == kSuccess)
        state().sticky = kIllegalAddress;
      break;
    }
  return kSuccess;
}

FAKE_CUDA_API CUresult cuGraphExecDestroy(CUgraphExec_st *exec) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().graphExecs.erase(exec))
    return kInvalidHandle;
  delete reinterpret_cast<Graph *>(exec);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuGraphDestroy(CUgraph_st *graph) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().graphs.erase(graph))
    return kInvalidHandle;
  delete reinterpret_cast<Graph *>(graph);
  return kSuccess;
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
    if (mentions(text, kernel)) {
      // The test kernels' parameters are their signatures': pointers and
      // i64 8 bytes, i32 4.
      Kernel &k = result->kernels[kernel];
      k.name = kernel;
      k.sizesKnown = true;
      for (const char *c = signatureOf(kernel); *c; ++c)
        k.paramSizes.push_back(*c == 'i' ? 4 : 8);
    }
  if (anyKernel())
    for (size_t at = text.find(".entry "); at != std::string::npos;
         at = text.find(".entry ", at + 1)) {
      size_t begin = at + 7, end = begin;
      while (end < text.size() && isIdentifierChar(text[end]))
        ++end;
      if (end == begin)
        continue;
      std::string name = text.substr(begin, end - begin);
      if (result->kernels.count(name))
        continue;
      Kernel &k = result->kernels[name];
      k.name = name;
      k.sizesKnown = ptxParamSizes(text, end, k.paramSizes);
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
  // The handle is the (stable) kernel stored in the module.
  *function = reinterpret_cast<CUfunc_st *>(&it->second);
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
  const Kernel &kernel = *reinterpret_cast<const Kernel *>(function);
  Node node;
  node.kind = Node::Kind::Launch;
  node.kernel = &kernel;
  const unsigned grid[3] = {gridX, gridY, gridZ},
                 block[3] = {blockX, blockY, blockZ};
  std::copy(grid, grid + 3, node.grid);
  std::copy(block, block + 3, node.block);
  if (stream && state().captures.count(stream)) {
    // The driver copies the parameters into the graph's node: later
    // changes to the caller's values do not reach it.
    if (state().captures[stream].invalidated)
      return kCaptureInvalidated;
    if (!kernel.sizesKnown) {
      logLine("capture: cannot capture " + kernel.name +
              ": its parameters' sizes are unknown");
      return kNotSupported;
    }
    for (size_t i = 0; i < kernel.paramSizes.size(); ++i) {
      const auto *value = static_cast<const unsigned char *>(params[i]);
      node.params.emplace_back(value, value + kernel.paramSizes[i]);
    }
    return issue(std::move(node), stream, "cuLaunchKernel");
  }
  if (!stream)
    if (CUresult refused = refuseLegacyStream("cuLaunchKernel"))
      return refused;
  runLaunch(kernel, grid, block, stream, params);
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
  Node node;
  node.kind = Node::Kind::Event;
  node.event = event;
  if (!stream || !state().captures.count(stream))
    state().capturedEvents.erase(event);
  return issue(std::move(node), stream, "cuEventRecord");
}

FAKE_CUDA_API CUresult cuEventSynchronize(CUevent_st *event) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.count(event))
    return kInvalidHandle;
  if (state().capturedEvents.count(event))
    return kCapturedEvent;
  return state().sticky;
}

FAKE_CUDA_API CUresult cuEventElapsedTime(float *milliseconds,
                                          CUevent_st *start, CUevent_st *stop) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.count(start) || !state().events.count(stop))
    return kInvalidHandle;
  if (state().capturedEvents.count(start) || state().capturedEvents.count(stop))
    return kCapturedEvent;
  *milliseconds = float(reinterpret_cast<Event *>(stop)->milliseconds -
                        reinterpret_cast<Event *>(start)->milliseconds);
  return kSuccess;
}

FAKE_CUDA_API CUresult cuEventDestroy_v2(CUevent_st *event) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.erase(event))
    return kInvalidHandle;
  state().capturedEvents.erase(event);
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
