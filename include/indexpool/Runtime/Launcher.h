//===- Launcher.h - runs a manifest's launches on a CudaDevice --*- C++ -*-===//
//
// Allocates the device memory of a bound manifest's buffers (inputs,
// outputs and temporaries; intermediates have none, and an output in place
// of an input lives in the input's memory), uploads inputs, runs
// the launches in order on the stream it is given (the caller's, or the
// default stream), optionally many times between events for timing, and
// downloads the outputs. Every copy, memset, launch and event goes on that
// stream, and waiting waits for that stream only, so the launcher shares a
// device with a caller's other work. Host tensors hold doubles (the
// reference's HostTensor); device buffers hold the types' storage formats
// (f16/bf16 bit patterns, f8E4M3FN codes, little-endian), converted here.
//
// A function called on the caller's device memory (GpuFunction) uses it
// differently: createUnbound loads the binary once, bind() prepares one
// binding of the sizes with the inputs and outputs in the caller's memory
// (only the temporaries are allocated), setCallerBuffers() re-points them
// and enqueue() queues the launches without waiting.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_LAUNCHER_H
#define INDEXPOOL_RUNTIME_LAUNCHER_H

#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/Storage.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace indexpool::runtime {

/// Whether a binary for `chip` (e.g. "sm_90", "sm_90a") in `format` runs on
/// a device of compute capability major.minor: a cubin needs the same major
/// and a minor at least the chip's (exactly the chip's for an
/// arch-specific "a" chip); PTX is JIT-compiled for any newer device (the
/// same one for "a"). Sets `error` to one line when it does not.
bool checkChipCompatibility(const std::string &chip, BinaryFormat format,
                            const DeviceInfo &device, std::string &error);

class Launcher {
public:
  /// Buffer id -> device memory the caller owns (inputs and outputs): the
  /// launcher neither allocates, zeroes nor frees it.
  using CallerBuffers = std::map<int64_t, CudaDevice::DevicePointer>;

  /// Checks that the binary fits the device (chip, threads per block,
  /// shared memory), loads it, finds every kernel, allocates and zeroes
  /// every buffer with device memory and prepares the parameters.
  /// `manifest` must be bound (bindSizes, with the device's
  /// info().multiprocessorCount) and outlive the launcher; `stream` is an
  /// opaque CUstream the caller owns (null: the default stream).
  static std::unique_ptr<Launcher>
  create(CudaDevice &device, const Manifest &manifest, const std::string &image,
         std::string &error, CudaDevice::StreamHandle stream = nullptr);
  /// Checks that the binary fits the device (chip, threads per block,
  /// shared memory) and loads it; `manifest` (outliving the launcher until
  /// the first bind) may still need binding. Nothing is allocated: bind()
  /// before enqueue().
  static std::unique_ptr<Launcher>
  createUnbound(CudaDevice &device, const Manifest &manifest,
                const std::string &image, std::string &error);
  ~Launcher();
  Launcher(const Launcher &) = delete;
  Launcher &operator=(const Launcher &) = delete;

  /// Prepares the launches of `manifest`, a bound instance of the manifest
  /// the launcher was created with (the same binary), which replaces the
  /// previous one and must outlive the launcher or the next bind. The
  /// buffers of `callerBuffers` are the caller's; every other buffer with
  /// device memory (the temporaries) is allocated and zeroed on the stream,
  /// after the previous binding's are freed (the device is synchronized
  /// first: queued work may still use them). On failure the launcher
  /// enqueues nothing until a bind succeeds.
  bool bind(const Manifest &manifest, const CallerBuffers &callerBuffers,
            std::string &error);
  /// Re-points buffers given to bind() as the caller's and rewrites the
  /// kernels' parameters, checking each pointer's alignment (the message
  /// names the input or output). Allocates nothing.
  bool setCallerBuffers(const CallerBuffers &callerBuffers,
                        std::string &error);
  /// Keeps the current temporaries allocated until the launcher is
  /// destroyed instead of freeing them at the next bind(): a CUDA graph
  /// captured from enqueue() holds their addresses, and its replays must
  /// still find them after the launcher moved on to other sizes.
  void retainTemporaries() { retainOnRebind = true; }
  /// The stream of the copies, memsets, launches and events that follow.
  void setStream(CudaDevice::StreamHandle newStream) { stream = newStream; }
  /// Queues every launch once on the stream and returns without waiting:
  /// a kernel's failure shows at the stream's next synchronization.
  bool enqueue(std::string &error);

  /// Copies `inputs` (one per input buffer, in index order, checked against
  /// the buffers) to the device.
  bool upload(const std::vector<ref::HostTensor> &inputs, std::string &error);
  /// Runs every launch once, synchronizing the stream after each so that a
  /// failure names its kernel.
  bool run(std::string &error);
  /// Runs all launches `runs` times; one time per run (milliseconds between
  /// events recorded before the first and after the last launch). Inputs
  /// are not uploaded again: a function with an output in place of an input
  /// runs each time on the state the previous run left (steps on evolving
  /// state, as a decode loop does), so download before benchmarking.
  bool benchmark(unsigned runs, std::vector<double> &milliseconds,
                 std::string &error);
  /// Times `runs` device-to-device copies of `bytes` bytes (between two
  /// scratch buffers), the anchor a memory-bound kernel is compared with.
  bool benchmarkCopy(size_t bytes, unsigned runs,
                     std::vector<double> &milliseconds, std::string &error);
  /// Copies the outputs back, one per output buffer, in index order (an
  /// output in place of an input from the input's memory).
  bool download(std::vector<ref::HostTensor> &outputs, std::string &error);

  /// The device pointer of buffer `id` (0 for none); for an output in place
  /// of an input, the input's.
  CudaDevice::DevicePointer pointerOf(int64_t id) const;
  /// Bytes of all input and output buffers (for effective GB/s), an output
  /// in place of an input counted once, as the input.
  int64_t inputOutputBytes() const;

private:
  Launcher(CudaDevice &device, const Manifest &manifest,
           CudaDevice::StreamHandle stream)
      : device(device), manifest(&manifest), stream(stream) {}
  /// The checks of create() before anything is loaded.
  static bool checkFits(const CudaDevice &device, const Manifest &manifest,
                        std::string &error);
  /// Finds the kernels, allocates the buffers that are not the caller's and
  /// writes the parameters.
  bool prepare(std::string &error);
  bool writeParams(std::string &error);
  void releaseOwned();
  bool launchAll(bool synchronizeEach, std::string &error);

  CudaDevice &device;
  const Manifest *manifest;
  CudaDevice::StreamHandle stream;
  CudaDevice::ModuleHandle module = nullptr;
  std::vector<CudaDevice::FunctionHandle> functions;
  /// The memory the launcher allocated, and the caller's.
  std::map<int64_t, CudaDevice::DevicePointer> pointers;
  CallerBuffers callerPointers;
  /// Temporaries of earlier bindings that a captured graph may still use
  /// (retainTemporaries), freed with the launcher.
  std::vector<CudaDevice::DevicePointer> retained;
  bool retainOnRebind = false;
  /// Whether the launches are prepared (bind failed, or never ran: no).
  bool ready = false;
  /// Per launch: the parameter values (8 bytes each) and pointers to them.
  std::vector<std::vector<uint64_t>> paramValues;
  std::vector<std::vector<void *>> paramPointers;
};

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_LAUNCHER_H
