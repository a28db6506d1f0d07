//===- GpuBindings.cpp - GPU devices and functions in _indexpool ----------===//
//
// The runtime's GpuFunction (include/indexpool/Runtime/GpuFunction.h) for
// Python: an artifact loaded onto a device and launched on the caller's
// device memory and stream. Tensors arrive as the (address, DType code,
// shape, dtype) tuples that python/indexpool/gpu.py makes of CUDA tensors;
// host memory is refused there, before anything reaches the driver.
//
// A device is opened once per ordinal and shared by its functions (each
// holds it, so it outlives them). Every launch makes the device's primary
// context current on the calling thread: Python threads other than the one
// that opened the device launch too, and that context is PyTorch's.
//
//===----------------------------------------------------------------------===//

#include "GpuBindings.h"
#include "TensorArgs.h"

#include "indexpool/Runtime/GpuFunction.h"
#include "indexpool/Runtime/GpuGraph.h"

#include <pybind11/stl.h>

#include <map>
#include <mutex>

namespace indexpool::python {

namespace {

using runtime::CudaDevice;

/// One CudaDevice per ordinal while anything holds it.
std::shared_ptr<CudaDevice> openDevice(int ordinal) {
  static std::mutex mutex;
  static std::map<int, std::weak_ptr<CudaDevice>> devices;
  std::lock_guard<std::mutex> lock(mutex);
  if (std::shared_ptr<CudaDevice> open = devices[ordinal].lock())
    return open;
  std::string error;
  std::unique_ptr<CudaDevice> device = CudaDevice::open(error, ordinal);
  if (!device)
    raise(Status::error(error));
  std::shared_ptr<CudaDevice> shared(std::move(device));
  devices[ordinal] = shared;
  return shared;
}

/// The device's primary context current on this thread for a scope (the
/// driver calls need it there), the caller's context restored after.
class CurrentContext {
public:
  explicit CurrentContext(CudaDevice &device) : device(device) {
    std::string error;
    if (!device.makeCurrent(previous, error))
      status = Status::error(error);
  }
  ~CurrentContext() {
    if (status)
      device.restoreContext(previous);
  }
  CurrentContext(const CurrentContext &) = delete;
  CurrentContext &operator=(const CurrentContext &) = delete;
  Status status;

private:
  CudaDevice &device;
  CudaDevice::ContextHandle previous = nullptr;
};

/// A device as Python sees it: its facts and the handle functions share.
struct PyGpuDevice {
  std::shared_ptr<CudaDevice> device;
};

/// A GpuFunction and the device it lives on; one launch at a time.
class PyGpuFunction {
public:
  PyGpuFunction(std::shared_ptr<CudaDevice> device,
                std::unique_ptr<GpuFunction> function)
      : device(std::move(device)), function(std::move(function)) {
    for (size_t i = 0; i < this->function->numInputs(); ++i)
      inputTypes.push_back(this->function->inputType(i));
    for (size_t i = 0; i < this->function->numOutputs(); ++i)
      outputTypes.push_back(this->function->outputType(i));
  }
  ~PyGpuFunction() {
    // The function's temporaries are freed in the device's context.
    CurrentContext current(*device);
    function.reset();
  }

  std::vector<std::vector<int64_t>> outputShapes(py::sequence inputs) {
    BorrowedTensors borrowed;
    std::vector<TensorRef> refs;
    toDeviceRefs(inputs, inputTypes, "input", borrowed, refs);
    std::vector<std::vector<int64_t>> shapes;
    std::lock_guard<std::mutex> lock(mutex);
    if (Status status = function->outputShapes(refs.data(), refs.size(),
                                               shapes);
        !status)
      raise(status);
    return shapes;
  }

  void launch(py::sequence inputs, py::sequence outputs, uintptr_t stream) {
    BorrowedTensors borrowed;
    std::vector<TensorRef> inputRefs, outputRefs;
    toDeviceRefs(inputs, inputTypes, "input", borrowed, inputRefs);
    toDeviceRefs(outputs, outputTypes, "output", borrowed, outputRefs);
    Status status;
    {
      py::gil_scoped_release noGil;
      std::lock_guard<std::mutex> lock(mutex);
      CurrentContext current(*device);
      status = current.status
                   ? function->launch(inputRefs, outputRefs,
                                      reinterpret_cast<void *>(stream))
                   : current.status;
    }
    if (!status)
      raise(status);
  }

  std::vector<int64_t> inPlaceInputs() const {
    std::vector<int64_t> inputs;
    for (size_t i = 0; i < function->numOutputs(); ++i)
      inputs.push_back(function->inPlaceInput(i));
    return inputs;
  }

  const std::string &name() const { return function->manifest().function; }

  std::vector<TensorType> inputTypes, outputTypes;

private:
  /// Only the tuples of device tensors: NumPy arrays and DLPack capsules
  /// are host memory a kernel cannot read.
  void toDeviceRefs(py::sequence objects, const std::vector<TensorType> &types,
                    const char *kind, BorrowedTensors &borrowed,
                    std::vector<TensorRef> &refs) {
    toTensorRefs(objects, types, name(), kind, /*writable=*/true, borrowed,
                 refs, Memory::Device);
  }

  std::shared_ptr<CudaDevice> device;
  std::unique_ptr<GpuFunction> function;
  std::mutex mutex;
};

/// A GpuFunction that `load(device, status)` makes, with the device's
/// context current and the GIL released meanwhile.
template <typename Load>
std::unique_ptr<PyGpuFunction> loadOn(const std::shared_ptr<CudaDevice> &device,
                                      Load load) {
  Status status;
  std::unique_ptr<GpuFunction> function;
  {
    py::gil_scoped_release noGil;
    CurrentContext current(*device);
    status = current.status;
    if (status)
      function = load(*device, status);
  }
  if (!function)
    raise(status);
  return std::make_unique<PyGpuFunction>(device, std::move(function));
}

/// A CUDA graph captured from the launches a Python callable queues
/// (GpuGraph.h states the contract). It holds the device, which outlives it.
class PyGpuGraph {
public:
  /// Calls `step()` with `stream` capturing; the step's launches must go on
  /// that stream. A Python exception in the step ends the capture and is
  /// raised again; any other failure is an IndexPoolError.
  static std::unique_ptr<PyGpuGraph> capture(const PyGpuDevice &device,
                                             py::function step,
                                             uintptr_t stream) {
    std::unique_ptr<py::error_already_set> raised;
    Status status;
    std::unique_ptr<GpuGraph> graph;
    {
      CurrentContext current(*device.device);
      status = current.status;
      if (status)
        // The GIL stays held: the step is Python (each launch in it
        // releases the GIL around its driver calls itself).
        graph = GpuGraph::capture(
            *device.device, reinterpret_cast<void *>(stream),
            [&](void *) -> Status {
              try {
                step();
              } catch (py::error_already_set &e) {
                raised = std::make_unique<py::error_already_set>(std::move(e));
                return Status::error("the step raised an exception");
              }
              return Status();
            },
            status);
    }
    if (raised)
      throw std::move(*raised);
    if (!graph)
      raise(status);
    return std::unique_ptr<PyGpuGraph>(
        new PyGpuGraph(device.device, std::move(graph)));
  }
  ~PyGpuGraph() {
    CurrentContext current(*device);
    graph.reset();
  }

  void replay(uintptr_t stream) {
    Status status;
    {
      py::gil_scoped_release noGil;
      CurrentContext current(*device);
      status = current.status ? graph->replay(reinterpret_cast<void *>(stream))
                              : current.status;
    }
    if (!status)
      raise(status);
  }

private:
  PyGpuGraph(std::shared_ptr<CudaDevice> device,
             std::unique_ptr<GpuGraph> graph)
      : device(std::move(device)), graph(std::move(graph)) {}
  std::shared_ptr<CudaDevice> device;
  std::unique_ptr<GpuGraph> graph;
};

} // namespace

void bindGpu(py::module &m) {
  py::class_<PyGpuDevice>(m, "GpuDevice")
      .def(py::init([](int ordinal) {
             return PyGpuDevice{openDevice(ordinal)};
           }),
           py::arg("ordinal") = 0,
           "Opens CUDA device `ordinal` (its primary context) through the "
           "driver; IndexPoolError when there is no driver or device.")
      .def_property_readonly(
          "ordinal", [](const PyGpuDevice &d) { return d.device->info().ordinal; })
      .def_property_readonly(
          "name", [](const PyGpuDevice &d) { return d.device->info().name; })
      .def_property_readonly(
          "chip", [](const PyGpuDevice &d) { return d.device->info().chip(); })
      .def_property_readonly("multiprocessors",
                             [](const PyGpuDevice &d) {
                               return d.device->info().multiprocessorCount;
                             })
      .def("__repr__", [](const PyGpuDevice &d) {
        return "<indexpool.GpuDevice " + d.device->info().describe() + ">";
      });

  py::class_<PyGpuFunction>(m, "GpuFunction")
      .def_static(
          "load",
          [](const PyGpuDevice &device, const std::string &manifestPath) {
            return loadOn(device.device,
                          [&](CudaDevice &cuda, Status &status) {
                            return GpuFunction::load(cuda, manifestPath,
                                                     status);
                          });
          },
          py::arg("device"), py::arg("manifest_path"))
      .def_static(
          "from_memory",
          [](const PyGpuDevice &device, const std::string &manifest,
             const py::bytes &binary, const std::string &name) {
            std::string image = binary;
            return loadOn(device.device,
                          [&](CudaDevice &cuda, Status &status) {
                            return GpuFunction::fromMemory(cuda, manifest,
                                                           image, name, status);
                          });
          },
          py::arg("device"), py::arg("manifest"), py::arg("binary"),
          py::arg("name"))
      .def_property_readonly("name", &PyGpuFunction::name)
      .def_readonly("input_types", &PyGpuFunction::inputTypes)
      .def_readonly("output_types", &PyGpuFunction::outputTypes)
      .def_property_readonly("in_place_inputs", &PyGpuFunction::inPlaceInputs)
      .def("output_shapes", &PyGpuFunction::outputShapes, py::arg("inputs"))
      .def("launch", &PyGpuFunction::launch, py::arg("inputs"),
           py::arg("outputs"), py::arg("stream") = 0);

  py::class_<PyGpuGraph>(m, "GpuGraph")
      .def_static("capture", &PyGpuGraph::capture, py::arg("device"),
                  py::arg("step"), py::arg("stream"),
                  "Captures the launches step() queues on `stream` (a "
                  "CUstream handle, not the default stream) into a CUDA "
                  "graph; nothing runs meanwhile.")
      .def("replay", &PyGpuGraph::replay, py::arg("stream") = 0,
           "Queues the captured work on `stream` and returns.");
}

} // namespace indexpool::python
