//===- GpuGraph.cpp - GPU function calls captured into a CUDA graph -------===//

#include "indexpool/Runtime/GpuGraph.h"

namespace indexpool {

using runtime::CudaDevice;

std::unique_ptr<GpuGraph> GpuGraph::capture(CudaDevice &device, void *stream,
                                            const Record &record,
                                            Status &status) {
  std::string error;
  bool capturing = false;
  if (!device.isCapturing(stream, capturing, error)) {
    status = Status::error(error);
    return nullptr;
  }
  // A capture inside another would end the outer one early: the caller's
  // launches join the outer capture by themselves.
  if (capturing) {
    status = Status::error(
        "the stream is already capturing a CUDA graph: launch the functions "
        "directly, their work joins that capture");
    return nullptr;
  }
  if (!device.beginCapture(stream, error)) {
    status = Status::error(error);
    return nullptr;
  }
  Status recorded = record ? record(stream)
                           : Status::error("nothing to capture (no record "
                                           "function)");
  // Always ended, also after a failure: the stream leaves capture mode.
  CudaDevice::GraphHandle graph = nullptr;
  bool ended = device.endCapture(stream, graph, error);
  if (!recorded || !ended) {
    device.destroyGraph(graph);
    status = !recorded
                 ? Status::error("while capturing a CUDA graph: " +
                                 recorded.message())
                 : Status::error("the CUDA graph capture failed: " + error +
                                 " (a call that cannot be captured ran on "
                                 "this thread meanwhile: an allocation, a "
                                 "synchronization, a synchronous copy)");
    return nullptr;
  }
  CudaDevice::GraphExecHandle exec = nullptr;
  bool instantiated = device.instantiateGraph(graph, exec, error);
  // The instance is independent of the graph it was made from.
  device.destroyGraph(graph);
  if (!instantiated) {
    status = Status::error(error);
    return nullptr;
  }
  status = Status();
  return std::unique_ptr<GpuGraph>(new GpuGraph(device, exec));
}

GpuGraph::~GpuGraph() { device.destroyGraphExec(exec); }

Status GpuGraph::replay(void *stream) {
  std::string error;
  if (!device.launchGraph(exec, stream, error))
    return Status::error(error);
  return Status();
}

} // namespace indexpool
