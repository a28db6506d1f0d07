//===- Launcher.cpp - runs a manifest's launches on a CudaDevice ----------===//

#include "indexpool/Runtime/Launcher.h"

#include "indexpool/Reference/Numerics.h"
#include "indexpool/Target/Chips.h"

#include <cstring>
#include <limits>

// Storage formats are written with memcpy, in the host's byte order; the
// device (and the manifest format) is little-endian.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "Launcher.cpp assumes a little-endian host"
#endif

namespace indexpool::runtime {

using ref::ElementType;
using ref::HostTensor;

//===----------------------------------------------------------------------===//
// Storage formats
//===----------------------------------------------------------------------===//


//===----------------------------------------------------------------------===//
// Compatibility of a binary with the device
//===----------------------------------------------------------------------===//

bool checkChipCompatibility(const std::string &chip, BinaryFormat format,
                            const DeviceInfo &device, std::string &error) {
  int major, minor;
  bool archSpecific;
  if (!target::parseChipName(chip, major, minor, archSpecific)) {
    error = target::unknownChipMessage(chip);
    return false;
  }
  int have = device.computeCapabilityMajor * 10 + device.computeCapabilityMinor;
  int want = major * 10 + minor;
  bool ok;
  if (archSpecific)
    ok = have == want;
  else if (format == BinaryFormat::Cubin)
    ok = device.computeCapabilityMajor == major &&
         device.computeCapabilityMinor >= minor;
  else
    ok = have >= want;
  if (ok)
    return true;
  error = std::string("the binary is ") +
          (format == BinaryFormat::Cubin ? "a cubin" : "PTX") + " for " +
          chip + ", which device " + std::to_string(device.ordinal) + " (" +
          device.name + ", " + device.chip() +
          ") cannot run: compile it for " + device.chip() +
          " (indexpool-compile --chip=" + device.chip() + ")";
  return false;
}

//===----------------------------------------------------------------------===//
// Launcher
//===----------------------------------------------------------------------===//

bool Launcher::checkFits(const CudaDevice &device, const Manifest &manifest,
                         std::string &error) {
  const DeviceInfo &info = device.info();
  if (!checkChipCompatibility(manifest.chip, manifest.binaryFormat, info,
                              error))
    return false;
  for (size_t i = 0; i < manifest.launches.size(); ++i) {
    const Launch &launch = manifest.launches[i];
    std::string which = "launches[" + std::to_string(i) + "] (" +
                        launch.kernel + ")";
    // The manifest reader checked this already; a Manifest built in code
    // gets the same check before the driver reads its parameters.
    int64_t param;
    std::string why = checkLaunchParams(manifest, launch, param);
    if (!why.empty()) {
      error = which + ": " +
              (param >= 0 ? "params[" + std::to_string(param) + "]: " : "") +
              why;
      return false;
    }
    int64_t threads =
        int64_t(launch.block[0]) * launch.block[1] * launch.block[2];
    if (threads > info.maxThreadsPerBlock) {
      error = which + ": " + std::to_string(threads) +
              " threads per block, the device allows " +
              std::to_string(info.maxThreadsPerBlock);
      return false;
    }
    if (int64_t(launch.sharedMemoryBytes) > info.sharedMemoryPerBlockOptin) {
      error = which + ": " + std::to_string(launch.sharedMemoryBytes) +
              " bytes of shared memory per block, the device allows " +
              std::to_string(info.sharedMemoryPerBlockOptin);
      return false;
    }
  }
  return true;
}

std::unique_ptr<Launcher> Launcher::create(CudaDevice &device,
                                           const Manifest &manifest,
                                           const std::string &image,
                                           std::string &error,
                                           CudaDevice::StreamHandle stream) {
  if (manifest.needsBinding()) {
    error = manifest.name + " has sizes known at launch: bind them to the "
                            "inputs' shapes first (bindSizes)";
    return nullptr;
  }
  std::unique_ptr<Launcher> launcher =
      createUnbound(device, manifest, image, error);
  if (!launcher)
    return nullptr;
  launcher->stream = stream;
  if (!launcher->prepare(error))
    return nullptr;
  launcher->ready = true;
  return launcher;
}

std::unique_ptr<Launcher> Launcher::createUnbound(CudaDevice &device,
                                                  const Manifest &manifest,
                                                  const std::string &image,
                                                  std::string &error) {
  if (!checkFits(device, manifest, error))
    return nullptr;
  std::unique_ptr<Launcher> launcher(new Launcher(device, manifest, nullptr));
  if (!device.loadModule(image, launcher->module, error)) {
    error = "cannot load " + manifest.resolvedBinaryPath() + ": " + error;
    return nullptr;
  }
  return launcher;
}

bool Launcher::bind(const Manifest &bound, const CallerBuffers &callerBuffers,
                    std::string &error) {
  // The previous binding's manifest may go away with this call.
  ready = false;
  manifest = &bound;
  callerPointers = callerBuffers;
  if (bound.needsBinding()) {
    error = bound.name + " has sizes known at launch: bind them to the "
                         "inputs' shapes first (bindSizes)";
    return false;
  }
  if (!checkFits(device, bound, error))
    return false;
  if (retainOnRebind) {
    // A captured graph holds these addresses: kept, so nothing to wait for.
    for (const auto &[id, pointer] : pointers)
      retained.push_back(pointer);
    pointers.clear();
    retainOnRebind = false;
  }
  // Work queued with the previous binding may still use its temporaries.
  if (!pointers.empty() && !device.synchronize(error))
    return false;
  releaseOwned();
  ready = prepare(error);
  return ready;
}

bool Launcher::prepare(std::string &error) {
  const DeviceInfo &info = device.info();
  functions.clear();
  for (const Launch &launch : manifest->launches) {
    CudaDevice::FunctionHandle function;
    if (!device.getFunction(module, launch.kernel, function, error))
      return false;
    // More than the default 48 KiB of dynamic shared memory needs opting in.
    if (int64_t(launch.sharedMemoryBytes) > info.sharedMemoryPerBlock &&
        !device.setMaxDynamicSharedMemory(
            function, int(launch.sharedMemoryBytes), error)) {
      error = "kernel '" + launch.kernel + "': " + error;
      return false;
    }
    functions.push_back(function);
  }

  // An output in place of an input is read from the input's memory: it must
  // fit there exactly (the reader checks this; a Manifest built in code
  // gets the same check before anything is downloaded).
  for (const Buffer &buffer : manifest->buffers) {
    if (buffer.inPlaceOf < 0)
      continue;
    const Buffer *input = manifest->findBuffer(buffer.inPlaceOf);
    if (buffer.role != BufferRole::Output || !input ||
        input->role != BufferRole::Input || input->type != buffer.type ||
        input->shape != buffer.shape) {
      error = std::string(bufferRoleName(buffer.role)) + " buffer " +
              std::to_string(buffer.id) + " (" +
              tensorTypeString(buffer.shape, buffer.type) +
              ") cannot be in place of buffer " +
              std::to_string(buffer.inPlaceOf) +
              (input ? " (" + std::string(bufferRoleName(input->role)) + ", " +
                           tensorTypeString(input->shape, input->type) + ")"
                     : " (no such buffer)") +
              ": only an output in place of an input of its type and shape";
      return false;
    }
  }

  // Device memory, zeroed so that no run depends on stale contents; none
  // for an output in place of an input (it is the input's), nor for the
  // caller's buffers.
  for (const Buffer &buffer : manifest->buffers) {
    if (!buffer.hasDeviceMemory() || callerPointers.count(buffer.id))
      continue;
    CudaDevice::DevicePointer pointer;
    size_t bytes = size_t(buffer.sizeInBytes());
    if (!device.allocate(bytes, pointer, error) ||
        !device.fillZeroAsync(pointer, bytes, stream, error)) {
      error = std::string(bufferRoleName(buffer.role)) + " buffer " +
              std::to_string(buffer.id) + " (" +
              tensorTypeString(buffer.shape, buffer.type) + "): " + error;
      return false;
    }
    pointers[buffer.id] = pointer;
  }
  return writeParams(error);
}

bool Launcher::writeParams(std::string &error) {
  // Parameters: one 8-byte slot per parameter (4-byte values in its low
  // half, little-endian), and cuLaunchKernel's array of pointers to them.
  // Rewritten in place when only the caller's pointers change.
  const std::vector<Launch> &launches = manifest->launches;
  paramValues.resize(launches.size());
  paramPointers.resize(launches.size());
  for (size_t i = 0; i < launches.size(); ++i) {
    const Launch &launch = launches[i];
    std::vector<uint64_t> &values = paramValues[i];
    values.resize(launch.params.size());
    const Kernel *kernel = manifest->findKernel(launch.kernel);
    for (size_t j = 0; j < launch.params.size(); ++j) {
      const LaunchParam &param = launch.params[j];
      uint64_t slot = 0;
      switch (param.kind) {
      case LaunchParam::Kind::Buffer:
        slot = pointerOf(param.buffer);
        // Checked like any pointer a caller could pass (docs/manifest.md).
        if (kernel) {
          error = checkPointerAlignment(*kernel, j, slot);
          if (!error.empty()) {
            // The caller's memory: name the argument it passed.
            const Buffer *buffer = manifest->findBuffer(param.buffer);
            if (buffer && callerPointers.count(param.buffer))
              error = std::string(bufferRoleName(buffer->role)) + " #" +
                      std::to_string(buffer->index) + ": " + error;
            return false;
          }
        }
        break;
      case LaunchParam::Kind::I32: {
        int32_t v = int32_t(param.integer);
        std::memcpy(&slot, &v, sizeof(v));
        break;
      }
      case LaunchParam::Kind::I64: {
        int64_t v = param.integer;
        std::memcpy(&slot, &v, sizeof(v));
        break;
      }
      case LaunchParam::Kind::F32:
        std::memcpy(&slot, &param.f32, sizeof(param.f32));
        break;
      }
      values[j] = slot;
    }
    std::vector<void *> &pointersTo = paramPointers[i];
    if (pointersTo.size() != values.size() ||
        (!values.empty() && pointersTo[0] != &values[0])) {
      pointersTo.clear();
      for (uint64_t &value : values)
        pointersTo.push_back(&value);
    }
  }
  return true;
}

bool Launcher::setCallerBuffers(const CallerBuffers &callerBuffers,
                                std::string &error) {
  for (const auto &[id, pointer] : callerBuffers) {
    auto it = callerPointers.find(id);
    if (it == callerPointers.end()) {
      error = "buffer " + std::to_string(id) +
              " was not bound as the caller's memory";
      return false;
    }
    it->second = pointer;
  }
  return writeParams(error);
}

bool Launcher::enqueue(std::string &error) {
  if (!ready) {
    error = "the launches are not prepared: bind() did not succeed";
    return false;
  }
  return launchAll(/*synchronizeEach=*/false, error);
}

void Launcher::releaseOwned() {
  for (auto &[id, pointer] : pointers)
    device.release(pointer);
  pointers.clear();
}

Launcher::~Launcher() {
  releaseOwned();
  for (CudaDevice::DevicePointer pointer : retained)
    device.release(pointer);
  device.unloadModule(module);
}

CudaDevice::DevicePointer Launcher::pointerOf(int64_t id) const {
  if (const Buffer *buffer = manifest->findBuffer(id);
      buffer && buffer->inPlaceOf >= 0)
    id = buffer->inPlaceOf;
  if (auto it = callerPointers.find(id); it != callerPointers.end())
    return it->second;
  auto it = pointers.find(id);
  return it == pointers.end() ? 0 : it->second;
}

int64_t Launcher::inputOutputBytes() const {
  // Each buffer is at most 2^42 bytes, but a manifest may list millions:
  // saturate rather than wrap (the sum only feeds a GB/s figure). An output
  // in place of an input is the input's memory, counted once.
  int64_t bytes = 0;
  for (const Buffer &buffer : manifest->buffers)
    if ((buffer.role == BufferRole::Input ||
         (buffer.role == BufferRole::Output && buffer.hasDeviceMemory())) &&
        __builtin_add_overflow(bytes, buffer.sizeInBytes(), &bytes))
      return std::numeric_limits<int64_t>::max();
  return bytes;
}

bool Launcher::upload(const std::vector<HostTensor> &inputs,
                      std::string &error) {
  std::vector<const Buffer *> buffers = manifest->inputs();
  if (inputs.size() != buffers.size()) {
    error = "got " + std::to_string(inputs.size()) + " inputs for " +
            std::to_string(buffers.size()) + " input buffers";
    return false;
  }
  // The packed inputs live until the stream has copied them.
  std::vector<std::vector<char>> packed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Buffer &buffer = *buffers[i];
    if (inputs[i].type != buffer.type || inputs[i].shape != buffer.shape ||
        int64_t(inputs[i].data.size()) != buffer.numElements()) {
      error = "input #" + std::to_string(i) + " is " +
              tensorTypeString(inputs[i].shape, inputs[i].type) +
              ", but buffer " + std::to_string(buffer.id) + " is " +
              tensorTypeString(buffer.shape, buffer.type);
      return false;
    }
    std::vector<char> &bytes = packed.emplace_back(packTensor(inputs[i]));
    if (!device.copyToDeviceAsync(pointerOf(buffer.id), bytes.data(),
                                  bytes.size(), stream, error)) {
      error = "input #" + std::to_string(i) + ": " + error;
      return false;
    }
  }
  return device.synchronizeStream(stream, error);
}

bool Launcher::launchAll(bool synchronizeEach, std::string &error) {
  for (size_t i = 0; i < manifest->launches.size(); ++i) {
    const Launch &launch = manifest->launches[i];
    void **params =
        paramPointers[i].empty() ? nullptr : paramPointers[i].data();
    if (!device.launch(functions[i], launch.grid, launch.block,
                       launch.sharedMemoryBytes, params, error, stream) ||
        (synchronizeEach && !device.synchronizeStream(stream, error))) {
      error = "launches[" + std::to_string(i) + "] (" + launch.kernel +
              "): " + error;
      return false;
    }
  }
  return true;
}

bool Launcher::run(std::string &error) {
  return launchAll(/*synchronizeEach=*/true, error) &&
         device.synchronizeStream(stream, error);
}

namespace {
/// Two events, destroyed with the scope.
struct EventPair {
  explicit EventPair(CudaDevice &device) : device(device) {}
  ~EventPair() {
    device.destroyEvent(start);
    device.destroyEvent(stop);
  }
  bool create(std::string &error) {
    return device.createEvent(start, error) && device.createEvent(stop, error);
  }
  CudaDevice &device;
  CudaDevice::EventHandle start = nullptr, stop = nullptr;
};
} // namespace

bool Launcher::benchmark(unsigned runs, std::vector<double> &milliseconds,
                         std::string &error) {
  milliseconds.clear();
  EventPair events(device);
  if (!events.create(error))
    return false;
  for (unsigned run = 0; run < runs; ++run) {
    float ms = 0;
    if (!device.recordEvent(events.start, error, stream) ||
        !launchAll(/*synchronizeEach=*/false, error) ||
        !device.recordEvent(events.stop, error, stream) ||
        !device.elapsedMilliseconds(events.start, events.stop, ms, error))
      return false;
    milliseconds.push_back(double(ms));
  }
  return device.synchronizeStream(stream, error);
}

bool Launcher::benchmarkCopy(size_t bytes, unsigned runs,
                             std::vector<double> &milliseconds,
                             std::string &error) {
  milliseconds.clear();
  CudaDevice::DevicePointer source = 0, destination = 0;
  bool ok = device.allocate(bytes, source, error) &&
            device.allocate(bytes, destination, error) &&
            device.fillZeroAsync(source, bytes, stream, error);
  EventPair events(device);
  ok = ok && events.create(error);
  for (unsigned run = 0; ok && run < runs; ++run) {
    float ms = 0;
    ok = device.recordEvent(events.start, error, stream) &&
         device.copyOnDeviceAsync(destination, source, bytes, stream, error) &&
         device.recordEvent(events.stop, error, stream) &&
         device.elapsedMilliseconds(events.start, events.stop, ms, error);
    milliseconds.push_back(double(ms));
  }
  ok = ok && device.synchronizeStream(stream, error);
  device.release(source);
  device.release(destination);
  return ok;
}

bool Launcher::download(std::vector<HostTensor> &outputs, std::string &error) {
  outputs.clear();
  std::vector<const Buffer *> buffers = manifest->outputs();
  std::vector<std::vector<char>> bytes;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer &buffer = *buffers[i];
    std::vector<char> &out =
        bytes.emplace_back(size_t(buffer.sizeInBytes()));
    if (!device.copyToHostAsync(out.data(), pointerOf(buffer.id), out.size(),
                                stream, error)) {
      error = "output #" + std::to_string(i) + ": " + error;
      return false;
    }
  }
  if (!device.synchronizeStream(stream, error))
    return false;
  for (size_t i = 0; i < buffers.size(); ++i)
    outputs.push_back(
        unpackTensor(bytes[i].data(), buffers[i]->type, buffers[i]->shape));
  return true;
}

} // namespace indexpool::runtime
