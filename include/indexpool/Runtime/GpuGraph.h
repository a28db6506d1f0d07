//===- GpuGraph.h - GPU function calls captured into a CUDA graph -*- C++ -*-===//
//
// A decode step is a few small kernels per function (append_paged, then
// select_paged), each launch costing microseconds of host time: at small
// batches the GPU waits on the host. A GpuGraph captures the work that one
// or more GpuFunction::launch calls queue on a stream into a CUDA graph once
// (cuStreamBeginCapture ... cuStreamEndCapture, cuGraphInstantiate) and
// replays all of it with one cuGraphLaunch. MLIR-free, like GpuFunction.
//
// The contract, as with torch.cuda.CUDAGraph's static inputs:
//  - The graph holds the kernels with their parameters as captured: the
//    device addresses of the inputs and outputs, of the functions'
//    temporaries, and the sizes bound from the input shapes. A replay reads
//    whatever those addresses hold when it runs: write new contents there
//    between replays (keys, queries, lengths, block tables), never other
//    addresses or shapes (capture another graph for those).
//  - That memory, and the GpuFunctions captured, must outlive the graph.
//    A function keeps the temporaries a graph was captured with until the
//    function is destroyed, also when later launches bind other shapes.
//  - A function's temporaries are shared by its direct launches and every
//    graph captured from it: order them (one stream, or events), as two
//    direct launches of it must be.
//  - Nothing in the capture may allocate, free, synchronize or copy through
//    the host. GpuFunction::launch does none of these for input shapes it
//    was launched or prepare()d with before; with new shapes it refuses,
//    with one line, instead of binding them. Any other uncapturable call
//    made on the capturing thread fails in the driver and the capture with
//    it: capture() ends the capture and returns that error, never a graph.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_GPUGRAPH_H
#define INDEXPOOL_RUNTIME_GPUGRAPH_H

#include "indexpool/API/Status.h"
#include "indexpool/Runtime/Cuda.h"

#include <functional>
#include <memory>

namespace indexpool {

class GpuGraph {
public:
  /// What is captured: queues work on `stream` (the capturing one), e.g.
  /// GpuFunction::launch calls, and returns their status.
  using Record = std::function<Status(void *stream)>;

  /// Captures the work `record` queues on `stream` (a CUstream of the
  /// caller's; not null: CUDA cannot capture the legacy default stream)
  /// into an instantiated graph. Nothing runs during the capture. On
  /// failure returns nullptr, with `status` one line: record's own error,
  /// or the driver's (an invalidated capture names what invalidated it),
  /// and the stream is left out of capture mode.
  static std::unique_ptr<GpuGraph> capture(runtime::CudaDevice &device,
                                           void *stream, const Record &record,
                                           Status &status);
  ~GpuGraph();
  GpuGraph(const GpuGraph &) = delete;
  GpuGraph &operator=(const GpuGraph &) = delete;

  /// Queues the captured work on `stream` (any stream of the device; null:
  /// the default stream) and returns without waiting.
  Status replay(void *stream);

private:
  GpuGraph(runtime::CudaDevice &device,
           runtime::CudaDevice::GraphExecHandle exec)
      : device(device), exec(exec) {}

  runtime::CudaDevice &device;
  runtime::CudaDevice::GraphExecHandle exec;
};

} // namespace indexpool

#endif // INDEXPOOL_RUNTIME_GPUGRAPH_H
