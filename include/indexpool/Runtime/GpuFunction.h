//===- GpuFunction.h - a GPU artifact on the caller's memory ----*- C++ -*-===//
//
// What an engine embeds to run an artifact of compileForGpu (or of
// indexpool-compile) on its own GPU buffers: the manifest and its binary are
// loaded once onto a CudaDevice, and each launch() queues the kernels on the
// caller's stream over the caller's device pointers, with no copy and no
// synchronization, like any CUDA operation. MLIR-free: it builds in the
// runtime alone (-DINDEXPOOL_COMPILER=OFF).
//
// Tensors are TensorRefs whose data is a device pointer (a CUdeviceptr cast
// to void *), in the manifest's input and output index order. An output in
// place of an input (the manifest's `in_place_of`, e.g. a paged op's page
// pool) is written in the input's memory: its TensorRef's data is null or
// the input's pointer. Temporaries are the function's own: allocated for
// one set of input shapes (sizes bound with the device's SM count) and
// reused while the shapes stay the same; new shapes free them (after
// waiting for the device) and allocate the new ones.
//
// A GpuFunction is used by one thread at a time, the one that opened its
// CudaDevice (whose context is current there), and must not outlive it.
//
// Launches can be captured into a CUDA graph and replayed (GpuGraph.h, which
// states the contract): with the shapes of an earlier launch or prepare(), a
// launch only queues kernels, which a capture records; temporaries a graph
// was captured with are kept until the function is destroyed.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_GPUFUNCTION_H
#define INDEXPOOL_RUNTIME_GPUFUNCTION_H

#include "indexpool/API/Status.h"
#include "indexpool/API/Tensor.h"
#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/Launcher.h"
#include "indexpool/Runtime/Manifest.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace indexpool {

class GpuGraph;

class GpuFunction {
public:
  /// Loads the manifest at `manifestPath` and its binary (binary.path,
  /// relative to the manifest's folder), checks that the binary fits the
  /// device and loads it there. On failure returns nullptr and sets
  /// `status` to one line.
  static std::unique_ptr<GpuFunction> load(runtime::CudaDevice &device,
                                           const std::string &manifestPath,
                                           Status &status);
  /// The same from memory: `manifestText` (JSON) and `binary` (PTX text or
  /// cubin bytes), as a GpuArtifact holds them; `name` starts messages.
  static std::unique_ptr<GpuFunction>
  fromMemory(runtime::CudaDevice &device, const std::string &manifestText,
             const std::string &binary, const std::string &name,
             Status &status);
  ~GpuFunction();
  GpuFunction(const GpuFunction &) = delete;
  GpuFunction &operator=(const GpuFunction &) = delete;

  size_t numInputs() const { return inputBuffers.size(); }
  size_t numOutputs() const { return outputBuffers.size(); }
  /// The type of input (output) `i`; sizes known at launch are -1.
  TensorType inputType(size_t i) const;
  TensorType outputType(size_t i) const;
  /// The input whose memory output `i` is written in (`in_place_of`), or
  /// -1 for an output of its own.
  int64_t inPlaceInput(size_t i) const;
  /// The manifest as loaded (sizes unbound).
  const runtime::Manifest &manifest() const { return *symbolic; }

  /// The outputs' shapes for inputs of these shapes (their data is not
  /// read): what the caller allocates before launch().
  Status outputShapes(const TensorRef *inputs, size_t numInputs,
                      std::vector<std::vector<int64_t>> &shapes);

  /// Queues the function's kernels on `stream` (a CUstream; null: the
  /// default stream) over the caller's device memory and returns without
  /// waiting: the outputs are ready once the stream reaches this point, and
  /// a kernel's failure shows at the stream's next synchronization. Checks
  /// first, each failure one line: the counts, element types, shapes (the
  /// inputs' against the manifest, the outputs' against the bound sizes),
  /// a non-null pointer for every non-empty tensor, an in-place output's
  /// pointer, and the alignment the kernels need. With the shapes of the
  /// previous launch it allocates nothing.
  Status launch(const TensorRef *inputs, size_t numInputs,
                const TensorRef *outputs, size_t numOutputs, void *stream);
  Status launch(const std::vector<TensorRef> &inputs,
                const std::vector<TensorRef> &outputs, void *stream) {
    return launch(inputs.data(), inputs.size(), outputs.data(),
                  outputs.size(), stream);
  }

  /// Everything launch() does before queuing kernels: the checks, the
  /// binding of these shapes (temporaries allocated and zeroed on
  /// `stream`) and the caller's pointers. A launch with these shapes then
  /// allocates, frees and waits for nothing: what a CUDA graph capture
  /// needs. Refused, with one line, while `stream` is capturing and the
  /// shapes are new.
  Status prepare(const TensorRef *inputs, size_t numInputs,
                 const TensorRef *outputs, size_t numOutputs, void *stream);
  Status prepare(const std::vector<TensorRef> &inputs,
                 const std::vector<TensorRef> &outputs, void *stream) {
    return prepare(inputs.data(), inputs.size(), outputs.data(),
                   outputs.size(), stream);
  }

  /// prepare(), then this one launch captured from `stream` (a stream of
  /// the caller's, not null) into a graph to replay (GpuGraph.h). On
  /// failure returns nullptr and sets `status` to one line.
  std::unique_ptr<GpuGraph> capture(const std::vector<TensorRef> &inputs,
                                    const std::vector<TensorRef> &outputs,
                                    void *stream, Status &status);

private:
  /// A manifest bound to one set of input shapes.
  struct Binding {
    std::vector<std::vector<int64_t>> shapes;
    std::unique_ptr<runtime::Manifest> manifest;
  };

  GpuFunction(runtime::CudaDevice &device,
              std::unique_ptr<runtime::Manifest> symbolic)
      : device(device), symbolic(std::move(symbolic)) {}
  static std::unique_ptr<GpuFunction>
  create(runtime::CudaDevice &device,
         std::unique_ptr<runtime::Manifest> symbolic, const std::string &image,
         Status &status);
  Status checkInputs(const TensorRef *inputs, size_t numInputs) const;
  /// The binding for the inputs' shapes: the launcher's, the one
  /// outputShapes() made last, or a new one.
  Status bindingFor(const TensorRef *inputs, Binding *&binding);
  Status checkOutputs(const runtime::Manifest &bound, const TensorRef *inputs,
                      const TensorRef *outputs, size_t numOutputs) const;
  /// prepare()'s work; `capturing`: `stream` is capturing a graph, so new
  /// shapes are refused.
  Status prepareLaunch(const TensorRef *inputs, size_t numInputs,
                       const TensorRef *outputs, size_t numOutputs,
                       void *stream, bool capturing);
  /// Whether `stream` is capturing a CUDA graph.
  Status isCapturing(void *stream, bool &capturing) const;

  runtime::CudaDevice &device;
  std::unique_ptr<runtime::Manifest> symbolic;
  std::vector<const runtime::Buffer *> inputBuffers, outputBuffers;
  /// The launcher's binding (valid when `launcherBound`), and a spare.
  Binding current, spare;
  /// Declared after the manifests it reads, destroyed before them.
  std::unique_ptr<runtime::Launcher> launcher;
  bool launcherBound = false;
  /// The caller's pointers, keyed by buffer id (reused by every launch).
  runtime::Launcher::CallerBuffers callerBuffers;
};

} // namespace indexpool

#endif // INDEXPOOL_RUNTIME_GPUFUNCTION_H
