//===- GpuFunction.cpp - a GPU artifact run on the caller's memory --------===//

#include "indexpool/Runtime/GpuFunction.h"

#include "indexpool/API/Tensor.h"
#include "indexpool/Runtime/GpuGraph.h"

#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Reference/Numerics.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace indexpool {

using runtime::Buffer;
using runtime::CudaDevice;
using runtime::Manifest;

namespace {

/// "tensor<?x64xi32>": sizes known at launch as "?".
std::string typeString(const TensorType &type) {
  std::string text = "tensor<";
  for (int64_t size : type.shape)
    text += (size < 0 ? std::string("?") : std::to_string(size)) + "x";
  return text + dtypeName(type.dtype) + ">";
}

std::string count(size_t n, const char *what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

bool sameShape(const TensorRef &t, const std::vector<int64_t> &shape) {
  return size_t(t.rank) == shape.size() &&
         std::equal(shape.begin(), shape.end(), t.shape);
}

CudaDevice::DevicePointer devicePointer(const void *data) {
  return CudaDevice::DevicePointer(reinterpret_cast<uintptr_t>(data));
}

/// What readBinary checks of a binary file, for bytes held in memory; PTX
/// gets the terminating NUL cuModuleLoadData reads up to.
bool checkImage(const Manifest &manifest, std::string &image,
                std::string &error) {
  const std::string &name = manifest.name;
  if (image.empty()) {
    error = "the binary of " + name + " is empty";
    return false;
  }
  if (manifest.binaryFormat == runtime::BinaryFormat::Cubin) {
    if (image.compare(0, 4, "\x7f" "ELF") != 0) {
      error = "the binary of " + name +
              " is not a cubin (no ELF header), but binary.format says "
              "\"cubin\"";
      return false;
    }
    return true;
  }
  if (image.find('\0') != std::string::npos) {
    error = "the binary of " + name +
            " is not PTX text (it holds NUL bytes), but binary.format says "
            "\"ptx\"";
    return false;
  }
  image.push_back('\0');
  return true;
}

} // namespace

std::unique_ptr<GpuFunction> GpuFunction::load(CudaDevice &device,
                                               const std::string &manifestPath,
                                               Status &status) {
  auto manifest = std::make_unique<Manifest>();
  std::string image, error;
  if (!runtime::loadManifest(manifestPath, *manifest, error) ||
      !runtime::readBinary(*manifest, image, error)) {
    status = Status::error(error);
    return nullptr;
  }
  return create(device, std::move(manifest), image, status);
}

std::unique_ptr<GpuFunction>
GpuFunction::fromMemory(CudaDevice &device, const std::string &manifestText,
                        const std::string &binary, const std::string &name,
                        Status &status) {
  auto manifest = std::make_unique<Manifest>();
  std::string image = binary, error;
  if (!runtime::parseManifest(manifestText, name, "", *manifest, error) ||
      !checkImage(*manifest, image, error)) {
    status = Status::error(error);
    return nullptr;
  }
  return create(device, std::move(manifest), image, status);
}

std::unique_ptr<GpuFunction>
GpuFunction::create(CudaDevice &device, std::unique_ptr<Manifest> symbolic,
                    const std::string &image, Status &status) {
  std::unique_ptr<GpuFunction> function(
      new GpuFunction(device, std::move(symbolic)));
  const Manifest &manifest = *function->symbolic;
  function->inputBuffers = manifest.inputs();
  function->outputBuffers = manifest.outputs();
  std::string error;
  function->launcher =
      runtime::Launcher::createUnbound(device, manifest, image, error);
  if (!function->launcher) {
    status = Status::error(error);
    return nullptr;
  }
  status = Status();
  return function;
}

GpuFunction::~GpuFunction() {
  // The temporaries are freed with the launcher: queued kernels may still
  // use them.
  std::string ignored;
  if (launcherBound)
    device.synchronize(ignored);
}

static TensorType typeOf(const Buffer &buffer) {
  TensorType type;
  type.dtype = buffer.type;
  type.shape = buffer.shape;
  for (size_t d = 0; d < buffer.dims.size() && d < type.shape.size(); ++d)
    if (buffer.dims[d].isSize())
      type.shape[d] = -1;
  return type;
}

TensorType GpuFunction::inputType(size_t i) const {
  return i < inputBuffers.size() ? typeOf(*inputBuffers[i]) : TensorType();
}

TensorType GpuFunction::outputType(size_t i) const {
  return i < outputBuffers.size() ? typeOf(*outputBuffers[i]) : TensorType();
}

int64_t GpuFunction::inPlaceInput(size_t i) const {
  if (i >= outputBuffers.size() || outputBuffers[i]->inPlaceOf < 0)
    return -1;
  const runtime::Buffer *input =
      symbolic->findBuffer(outputBuffers[i]->inPlaceOf);
  return input ? input->index : -1;
}

Status GpuFunction::checkInputs(const TensorRef *inputs,
                                size_t numInputs) const {
  if (numInputs != inputBuffers.size())
    return Status::error("@" + symbolic->function + " takes " +
                         count(inputBuffers.size(), "input") + ", got " +
                         std::to_string(numInputs));
  if (numInputs && !inputs)
    return Status::error("inputs is null");
  for (size_t i = 0; i < numInputs; ++i) {
    const TensorRef &t = inputs[i];
    std::string what = "input #" + std::to_string(i);
    if (t.rank < 0 || t.rank > kMaxRank)
      return Status::error(what + " has rank " + std::to_string(t.rank) +
                           " (at most " + std::to_string(kMaxRank) + ")");
    TensorType expected = typeOf(*inputBuffers[i]);
    if (t.dtype != expected.dtype)
      return Status::error(what + " is " + dtypeName(t.dtype) +
                           ", expected " + typeString(expected));
  }
  return Status();
}

Status GpuFunction::bindingFor(const TensorRef *inputs, Binding *&binding) {
  auto matches = [&](const Binding &b) {
    if (!b.manifest)
      return false;
    for (size_t i = 0; i < b.shapes.size(); ++i)
      if (!sameShape(inputs[i], b.shapes[i]))
        return false;
    return true;
  };
  if (launcherBound && matches(current)) {
    binding = &current;
    return Status();
  }
  if (matches(spare)) {
    binding = &spare;
    return Status();
  }
  // New shapes: bind the sizes (the manifest's checks of the input shapes
  // and of everything they size).
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < inputBuffers.size(); ++i)
    shapes.push_back(inputs[i].sizes());
  auto bound = std::make_unique<Manifest>();
  std::string error;
  if (!runtime::bindSizes(*symbolic, shapes,
                          device.info().multiprocessorCount, *bound, error))
    return Status::error(error);
  spare.shapes = std::move(shapes);
  spare.manifest = std::move(bound);
  binding = &spare;
  return Status();
}

Status GpuFunction::outputShapes(const TensorRef *inputs, size_t numInputs,
                                 std::vector<std::vector<int64_t>> &shapes) {
  if (Status s = checkInputs(inputs, numInputs); !s)
    return s;
  Binding *binding = nullptr;
  if (Status s = bindingFor(inputs, binding); !s)
    return s;
  shapes.clear();
  for (const Buffer *buffer : binding->manifest->outputs())
    shapes.push_back(buffer->shape);
  return Status();
}

Status GpuFunction::checkOutputs(const Manifest &bound, const TensorRef *inputs,
                                 const TensorRef *outputs,
                                 size_t numOutputs) const {
  for (size_t i = 0; i < inputBuffers.size(); ++i)
    if (!inputs[i].data && bound.findBuffer(inputBuffers[i]->id)
                                   ->numElements() > 0)
      return Status::error("input #" + std::to_string(i) +
                           " has no data (a null pointer)");
  if (numOutputs != outputBuffers.size())
    return Status::error("@" + symbolic->function + " has " +
                         count(outputBuffers.size(), "output") + ", got " +
                         std::to_string(numOutputs));
  if (numOutputs && !outputs)
    return Status::error("outputs is null");
  for (size_t i = 0; i < numOutputs; ++i) {
    const TensorRef &t = outputs[i];
    const Buffer &buffer = *bound.findBuffer(outputBuffers[i]->id);
    std::string what = "output #" + std::to_string(i);
    TensorType expected{typeOf(buffer).dtype, buffer.shape};
    if (t.rank < 0 || t.rank > kMaxRank)
      return Status::error(what + " has rank " + std::to_string(t.rank) +
                           " (at most " + std::to_string(kMaxRank) + ")");
    if (t.dtype != expected.dtype)
      return Status::error(what + " is " + dtypeName(t.dtype) +
                           ", expected " + typeString(expected));
    if (!sameShape(t, buffer.shape))
      return Status::error(what + " is " + ref::shapeString(t.sizes()) +
                           ", expected " + typeString(expected));
    if (buffer.inPlaceOf >= 0) {
      // The kernels write the input's memory: a distinct pointer would be
      // left unwritten.
      const Buffer *input = bound.findBuffer(buffer.inPlaceOf);
      std::string which = "input #" + std::to_string(input->index);
      if (t.data && t.data != inputs[input->index].data)
        return Status::error(what + " is in place of " + which +
                             ": its data must be null or " + which +
                             "'s pointer");
      continue;
    }
    if (!t.data && buffer.numElements() > 0)
      return Status::error(what + " has no data (a null pointer)");
  }
  return Status();
}

Status GpuFunction::isCapturing(void *stream, bool &capturing) const {
  std::string error;
  if (!device.isCapturing(stream, capturing, error))
    return Status::error(error);
  return Status();
}

Status GpuFunction::prepareLaunch(const TensorRef *inputs, size_t numInputs,
                                  const TensorRef *outputs, size_t numOutputs,
                                  void *stream, bool capturing) {
  if (Status s = checkInputs(inputs, numInputs); !s)
    return s;
  Binding *binding = nullptr;
  if (Status s = bindingFor(inputs, binding); !s)
    return s;
  if (Status s = checkOutputs(*binding->manifest, inputs, outputs, numOutputs);
      !s)
    return s;

  std::string error;
  launcher->setStream(stream);
  if (binding != &current || !launcherBound) {
    // Binding allocates (and may free, after waiting for the device): none
    // of it can be captured, and a graph cannot hold it. Refused before
    // any driver call, so the capture stays valid for the caller to end.
    if (capturing) {
      std::string shapes;
      for (size_t i = 0; i < numInputs; ++i)
        shapes += (i ? ", " : "") + ref::shapeString(inputs[i].sizes());
      return Status::error(
          "@" + symbolic->function + " cannot take new input shapes (" +
          shapes +
          ") while its stream is capturing a CUDA graph: binding them "
          "allocates temporaries, which a capture cannot do; launch it (or "
          "prepare() it) once with these shapes before capturing");
    }
    // New shapes: the temporaries of these (zeroed on this stream).
    callerBuffers.clear();
    for (const Buffer &buffer : binding->manifest->buffers)
      if (buffer.hasDeviceMemory() &&
          (buffer.role == runtime::BufferRole::Input ||
           buffer.role == runtime::BufferRole::Output))
        callerBuffers[buffer.id] = 0;
    if (binding == &spare)
      std::swap(current, spare);
    launcherBound = launcher->bind(*current.manifest, callerBuffers, error);
    if (!launcherBound)
      return Status::error(error);
  }
  for (size_t i = 0; i < numInputs; ++i)
    callerBuffers[inputBuffers[i]->id] = devicePointer(inputs[i].data);
  for (size_t i = 0; i < numOutputs; ++i)
    if (outputBuffers[i]->inPlaceOf < 0)
      callerBuffers[outputBuffers[i]->id] = devicePointer(outputs[i].data);
  if (!launcher->setCallerBuffers(callerBuffers, error))
    return Status::error(error);
  return Status();
}

Status GpuFunction::prepare(const TensorRef *inputs, size_t numInputs,
                            const TensorRef *outputs, size_t numOutputs,
                            void *stream) {
  bool capturing = false;
  if (Status s = isCapturing(stream, capturing); !s)
    return s;
  return prepareLaunch(inputs, numInputs, outputs, numOutputs, stream,
                       capturing);
}

Status GpuFunction::launch(const TensorRef *inputs, size_t numInputs,
                           const TensorRef *outputs, size_t numOutputs,
                           void *stream) {
  // Asked of the driver at every launch (a lookup, no synchronization):
  // torch.cuda.graph captures without telling the function.
  bool capturing = false;
  if (Status s = isCapturing(stream, capturing); !s)
    return s;
  if (Status s = prepareLaunch(inputs, numInputs, outputs, numOutputs, stream,
                               capturing);
      !s)
    return s;
  std::string error;
  if (!launcher->enqueue(error))
    return Status::error(error);
  // A graph now holds these temporaries' addresses: never freed under it.
  if (capturing)
    launcher->retainTemporaries();
  return Status();
}

std::unique_ptr<GpuGraph>
GpuFunction::capture(const std::vector<TensorRef> &inputs,
                     const std::vector<TensorRef> &outputs, void *stream,
                     Status &status) {
  status = prepare(inputs, outputs, stream);
  if (!status)
    return nullptr;
  return GpuGraph::capture(
      device, stream,
      [&](void *capturing) { return launch(inputs, outputs, capturing); },
      status);
}

} // namespace indexpool
