//===- Cuda.h - the CUDA driver, loaded at run time -------------*- C++ -*-===//
//
// The runtime talks to the GPU through the CUDA driver API only, opened with
// dlopen("libcuda.so.1") (as Triton's driver.c does): nothing links against
// CUDA and no CUDA header is needed to build, so the same binary runs on a
// machine with a driver and fails with one clear line on one without.
// Symbols are looked up by their versioned names (cuMemAlloc_v2, ...), the
// ABI the CUDA headers select, never the legacy unversioned ones.
//
// Every failing driver call becomes a message naming the call and the
// driver's own words: "cuMemAlloc_v2: out of memory
// (CUDA_ERROR_OUT_OF_MEMORY)". No exceptions. A CudaDevice is used from the
// thread that opened it (its primary context is current there).
//
// $INDEXPOOL_LIBCUDA_PATH, when set, names the driver library to open
// instead of libcuda.so.1 (e.g. a compat driver; the tests use a fake one).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_CUDA_H
#define INDEXPOOL_RUNTIME_CUDA_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace indexpool::runtime {

/// What the runtime reads from the device (cuDeviceGetAttribute). These are
/// the facts of the actual part, preferred over the compiler's target table
/// (lib/Target), which only holds a representative part per chip.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int computeCapabilityMajor = 0;
  int computeCapabilityMinor = 0;
  int multiprocessorCount = 0;
  int maxThreadsPerMultiprocessor = 0;
  int maxThreadsPerBlock = 0;
  int maxBlocksPerMultiprocessor = 0;
  int registersPerMultiprocessor = 0;
  /// Bytes of shared memory per SM, per block without opting in, and the
  /// most a block may opt in to.
  int sharedMemoryPerMultiprocessor = 0;
  int sharedMemoryPerBlock = 0;
  int sharedMemoryPerBlockOptin = 0;
  int l2CacheBytes = 0;
  /// Peak memory clock (kHz) and bus width (bits): 2 * clock * width / 8
  /// is the peak DRAM bandwidth.
  int memoryClockKHz = 0;
  int memoryBusWidthBits = 0;
  uint64_t totalMemoryBytes = 0;
  /// cuDriverGetVersion: 12040 for CUDA 12.4.
  int driverVersion = 0;

  /// "sm_90" for compute capability 9.0.
  std::string chip() const;
  /// Peak DRAM bandwidth in GB/s from the clock and bus width.
  double peakBandwidthGBps() const;
  /// One line: "NVIDIA H100 (sm_90, 132 SMs, 2048 threads/SM, 228 KiB
  /// shared/SM, 50 MiB L2, 79.6 GiB, driver 12.4)".
  std::string describe() const;
};

class CudaDevice {
public:
  using DevicePointer = uint64_t;
  /// Opaque driver handles (CUmodule, CUfunction, CUevent, CUstream; a null
  /// stream is the default stream).
  using ModuleHandle = void *;
  using FunctionHandle = void *;
  using EventHandle = void *;
  using StreamHandle = void *;
  using ContextHandle = void *;
  /// A captured graph (CUgraph) and its executable instance (CUgraphExec).
  using GraphHandle = void *;
  using GraphExecHandle = void *;

  /// Loads the driver and opens device `ordinal` with its primary context.
  /// `driverPath` overrides $INDEXPOOL_LIBCUDA_PATH and libcuda.so.1. On
  /// failure returns nullptr and sets `error` to one line: "no CUDA driver:
  /// libcuda.so.1 not found", "no CUDA device", "no CUDA device 3 (this
  /// machine has 1)", or the failing call and the driver's message.
  static std::unique_ptr<CudaDevice> open(std::string &error, int ordinal = 0,
                                          const std::string &driverPath = "");
  ~CudaDevice();
  CudaDevice(const CudaDevice &) = delete;
  CudaDevice &operator=(const CudaDevice &) = delete;

  const DeviceInfo &info() const { return deviceInfo; }
  /// Makes the device's primary context (the one the CUDA runtime and
  /// PyTorch use) current on the calling thread, which need not be the
  /// opener's, and returns the context that was current, for
  /// restoreContext: a library called by an engine leaves the engine's
  /// current device as it found it.
  bool makeCurrent(ContextHandle &previous, std::string &error);
  void restoreContext(ContextHandle previous);

  // Memory. `allocate` of 0 bytes gives a null pointer (and succeeds).
  bool allocate(size_t bytes, DevicePointer &out, std::string &error);
  void release(DevicePointer pointer);
  /// Pinned (page-locked) host memory (cuMemHostAlloc): copies between it
  /// and the device run at the bus's speed and may overlap kernels.
  bool allocateHost(size_t bytes, void *&out, std::string &error);
  void releaseHost(void *pointer);
  bool copyToDevice(DevicePointer destination, const void *source,
                    size_t bytes, std::string &error);
  bool copyToHost(void *destination, DevicePointer source, size_t bytes,
                  std::string &error);
  bool copyOnDevice(DevicePointer destination, DevicePointer source,
                    size_t bytes, std::string &error);
  bool fillZero(DevicePointer destination, size_t bytes, std::string &error);

  // The same, ordered on `stream` (cuMemcpy*Async, cuMemsetD8Async): they
  // may return before the copy is done, except into pageable host memory
  // (CUDA finishes those first); synchronizeStream waits.
  bool copyToDeviceAsync(DevicePointer destination, const void *source,
                         size_t bytes, StreamHandle stream, std::string &error);
  bool copyToHostAsync(void *destination, DevicePointer source, size_t bytes,
                       StreamHandle stream, std::string &error);
  bool copyOnDeviceAsync(DevicePointer destination, DevicePointer source,
                         size_t bytes, StreamHandle stream,
                         std::string &error);
  bool fillZeroAsync(DevicePointer destination, size_t bytes,
                     StreamHandle stream, std::string &error);

  // Streams: a caller's own, or one created here.
  bool createStream(StreamHandle &out, std::string &error);
  void destroyStream(StreamHandle stream);
  /// Waits for the work of `stream` only; reports errors of earlier
  /// asynchronous launches.
  bool synchronizeStream(StreamHandle stream, std::string &error);

  /// Loads a cubin, or NUL-terminated PTX that the driver JIT-compiles for
  /// the device (its error log goes into the message on failure).
  bool loadModule(const std::string &image, ModuleHandle &out,
                  std::string &error);
  void unloadModule(ModuleHandle module);
  bool getFunction(ModuleHandle module, const std::string &name,
                   FunctionHandle &out, std::string &error);
  /// cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES): needed before a
  /// launch with more than 48 KiB of dynamic shared memory.
  bool setMaxDynamicSharedMemory(FunctionHandle function, int bytes,
                                 std::string &error);
  /// Launches on `stream` (null: the default stream); `params` holds one
  /// pointer per kernel parameter, to its value (cuLaunchKernel's
  /// kernelParams).
  bool launch(FunctionHandle function, const std::array<uint32_t, 3> &grid,
              const std::array<uint32_t, 3> &block, uint32_t sharedMemoryBytes,
              void **params, std::string &error,
              StreamHandle stream = nullptr);
  /// Waits for all work; reports errors of earlier asynchronous launches.
  bool synchronize(std::string &error);

  // Events, for timing, recorded on `stream` (null: the default stream).
  bool createEvent(EventHandle &out, std::string &error);
  void destroyEvent(EventHandle event);
  bool recordEvent(EventHandle event, std::string &error,
                   StreamHandle stream = nullptr);
  /// Waits for `stop`, then the milliseconds between the two events.
  bool elapsedMilliseconds(EventHandle start, EventHandle stop,
                           float &milliseconds, std::string &error);

  // CUDA graphs: the work queued on one stream, captured once and launched
  // again with one call. These entry points are optional (CUDA 11.4 added
  // cuGraphInstantiateWithFlags): a driver without them opens, and these
  // calls fail with one line. supportsGraphs() says which.
  bool supportsGraphs() const;
  /// Starts capturing `stream`, which must be a stream of its own (CUDA
  /// cannot capture the legacy default stream), in thread-local mode: while
  /// it lasts, this thread's calls that cannot be captured (allocations,
  /// synchronizations, synchronous copies) fail and invalidate the capture;
  /// other threads are left alone.
  bool beginCapture(StreamHandle stream, std::string &error);
  /// Ends the capture of `stream`: `out` is the graph of the work queued on
  /// it since beginCapture. When the capture was invalidated, `out` is null
  /// and `error` says so.
  bool endCapture(StreamHandle stream, GraphHandle &out, std::string &error);
  /// Whether `stream` is capturing (or was, and got invalidated). Without
  /// the entry point (no graphs), never.
  bool isCapturing(StreamHandle stream, bool &capturing, std::string &error);
  bool instantiateGraph(GraphHandle graph, GraphExecHandle &out,
                        std::string &error);
  /// Queues the instance's work on `stream` (null: the default stream).
  bool launchGraph(GraphExecHandle graph, StreamHandle stream,
                   std::string &error);
  void destroyGraphExec(GraphExecHandle graph);
  void destroyGraph(GraphHandle graph);

  struct Driver;

private:
  CudaDevice() = default;

  std::unique_ptr<Driver> driver;
  DeviceInfo deviceInfo;
  int device = 0;
  void *context = nullptr;
};

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_CUDA_H
