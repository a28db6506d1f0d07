//===- ManifestLaunches.cpp - kernels' signatures and their launches ------===//
//
// "kernels" (each kernel's parameter signature) and "launches" (grid, block
// and parameters), and the check of a launch against its kernel's signature
// that loading applies to every launch and the Launcher again.
//
//===----------------------------------------------------------------------===//

#include "ManifestReader.h"

#include "indexpool/Runtime/Printable.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>

namespace indexpool::runtime {

/// Why a kernel parameter cannot name `buffer`, which has no device memory.
static std::string noDeviceMemory(const Buffer &buffer) {
  if (buffer.inPlaceOf >= 0)
    return "buffer " + std::to_string(buffer.id) + " is in place of input " +
           std::to_string(buffer.inPlaceOf) +
           " (it has no device memory of its own: name buffer " +
           std::to_string(buffer.inPlaceOf) + ")";
  return "buffer " + std::to_string(buffer.id) +
         " is an intermediate (it has no device memory)";
}

const char *paramKindName(LaunchParam::Kind kind) {
  switch (kind) {
  case LaunchParam::Kind::Buffer:
    return "buffer";
  case LaunchParam::Kind::I32:
    return "i32";
  case LaunchParam::Kind::I64:
    return "i64";
  case LaunchParam::Kind::F32:
    return "f32";
  }
  return "?";
}

int64_t paramKindBytes(LaunchParam::Kind kind) {
  return kind == LaunchParam::Kind::I32 || kind == LaunchParam::Kind::F32 ? 4
                                                                          : 8;
}

std::string checkPointerAlignment(const Kernel &kernel, size_t index,
                                  uint64_t pointer) {
  if (index >= kernel.params.size())
    return "";
  int64_t align = kernel.params[index].align;
  if (align <= 1 || pointer % uint64_t(align) == 0)
    return "";
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx", (unsigned long long)pointer);
  return "kernel '" + printable(kernel.name, '\'') + "' needs a " +
         std::to_string(align) + "-byte aligned pointer as parameter " +
         std::to_string(index) + ", got " + text;
}

std::string checkLaunchParams(const Manifest &manifest, const Launch &launch,
                              int64_t &param) {
  param = -1;
  const Kernel *kernel = manifest.findKernel(launch.kernel);
  std::string name = "kernel '" + printable(launch.kernel, '\'') + "'";
  if (!kernel)
    return name + " is not declared in \"kernels\" (its parameter signature "
                  "is needed to check the launch)";
  if (kernel->params.size() != launch.params.size())
    return name + " takes " + std::to_string(kernel->params.size()) +
           " parameter" + (kernel->params.size() == 1 ? "" : "s") +
           ", the launch passes " + std::to_string(launch.params.size());
  for (size_t i = 0; i < launch.params.size(); ++i) {
    const KernelParam &want = kernel->params[i];
    const LaunchParam &have = launch.params[i];
    param = int64_t(i);
    auto article = [](LaunchParam::Kind kind) {
      return std::string(kind == LaunchParam::Kind::I32 ||
                                 kind == LaunchParam::Kind::I64
                             ? "an "
                             : "a ") +
             paramKindName(kind) + " (" +
             std::to_string(paramKindBytes(kind)) + " bytes)";
    };
    if (want.kind != have.kind)
      return name + " takes " + article(want.kind) + " as parameter " +
             std::to_string(i) + ", the launch passes " + article(have.kind);
    if (have.kind != LaunchParam::Kind::Buffer)
      continue;
    const Buffer *buffer = manifest.findBuffer(have.buffer);
    if (!buffer)
      return "no buffer has id " + std::to_string(have.buffer);
    if (!buffer->hasDeviceMemory())
      return noDeviceMemory(*buffer);
    // Sizes not bound yet: bindSizes checks the extents.
    if (!manifest.needsBinding() && want.bytes > buffer->sizeInBytes())
      return name + " accesses " + std::to_string(want.bytes) +
             " bytes through parameter " + std::to_string(i) + ", but buffer " +
             std::to_string(buffer->id) + " (" +
             tensorTypeString(buffer->shape, buffer->type) + ") has " +
             std::to_string(buffer->sizeInBytes());
  }
  param = -1;
  return "";
}

namespace detail {

/// "buffer", "i32", "i64", "f32" -> the kind; false for anything else.
static bool parseParamKind(const std::string &name, LaunchParam::Kind &kind) {
  for (LaunchParam::Kind k : {LaunchParam::Kind::Buffer, LaunchParam::Kind::I32,
                              LaunchParam::Kind::I64, LaunchParam::Kind::F32})
    if (name == paramKindName(k)) {
      kind = k;
      return true;
    }
  return false;
}

bool Reader::readKernels(const json::Value &v) {
  if (!checkArray(v, "kernels"))
    return false;
  for (size_t i = 0; i < v.elements.size(); ++i) {
    const json::Value &k = v.elements[i];
    std::string field = at("kernels", i);
    if (!checkObject(k, field, {"name", "params"}))
      return false;
    Kernel kernel;
    const json::Value *name = member(k, field, "name");
    if (!name || !string(*name, sub(field, "name"), kernel.name))
      return false;
    if (out.findKernel(kernel.name))
      return fail(*name, sub(field, "name"),
                  "kernel '" + printable(kernel.name, '\'') +
                      "' is declared twice");
    const json::Value *params = arrayMember(k, field, "params");
    if (!params)
      return false;
    std::string pField = sub(field, "params");
    for (size_t j = 0; j < params->elements.size(); ++j) {
      const json::Value &p = params->elements[j];
      std::string paramField = at(pField, j);
      if (!checkObject(p, paramField, {"kind", "bytes", "align"}))
        return false;
      KernelParam param;
      const json::Value *kind = member(p, paramField, "kind");
      if (!kind)
        return false;
      if (!kind->isString() || !parseParamKind(kind->string, param.kind))
        return fail(*kind, sub(paramField, "kind"),
                    "expected \"buffer\", \"i32\", \"i64\" or \"f32\", got " +
                        describeValue(*kind));
      if (const json::Value *bytes = member(p, paramField, "bytes", false)) {
        if (param.kind != LaunchParam::Kind::Buffer)
          return fail(*bytes, sub(paramField, "bytes"),
                      "only buffer parameters have a size");
        // At most the largest buffer: 2^40 elements of 4 bytes.
        if (!sizeOperand(*bytes, sub(paramField, "bytes"), 0,
                         kMaxBufferElements * 4, 0, int64_t(out.sizes.size()),
                         -1, param.bytesOperand, param.bytes))
          return false;
      }
      if (const json::Value *align = member(p, paramField, "align", false)) {
        if (param.kind != LaunchParam::Kind::Buffer)
          return fail(*align, sub(paramField, "align"),
                      "only buffer parameters have an alignment");
        if (!integer(*align, sub(paramField, "align"), 1, 256, param.align))
          return false;
        if (param.align & (param.align - 1))
          return fail(*align, sub(paramField, "align"),
                      "expected a power of two, got " +
                          std::to_string(param.align));
      }
      kernel.params.push_back(param);
    }
    out.kernels.push_back(std::move(kernel));
  }
  return true;
}

bool Reader::readLaunches(const json::Value &v) {
  if (!checkArray(v, "launches"))
    return false;
  for (size_t i = 0; i < v.elements.size(); ++i) {
    Launch launch;
    std::string field = at("launches", i);
    if (!readLaunch(v.elements[i], field, launch))
      return false;
    // An empty op (a size of 0 in its grid) computes nothing, and CUDA
    // rejects the launch: it is left out.
    if (std::count(launch.grid.begin(), launch.grid.end(), 0u)) {
      ++out.skippedLaunches;
      continue;
    }
    // The signature: a launch that passes fewer or other parameters than
    // the kernel takes would have the driver read past them.
    int64_t param = -1;
    std::string why = checkLaunchParams(out, launch, param);
    if (!why.empty()) {
      const json::Value &launchValue = v.elements[i];
      const json::Value *params = launchValue.find("params");
      if (param >= 0)
        return fail(params->elements[size_t(param)],
                    at(sub(field, "params"), size_t(param)), why);
      if (!out.findKernel(launch.kernel))
        return fail(*launchValue.find("kernel"), sub(field, "kernel"), why);
      return fail(*params, sub(field, "params"), why);
    }
    out.launches.push_back(std::move(launch));
  }
  return true;
}

bool Reader::readLaunch(const json::Value &v, const std::string &field,
                        Launch &launch) {
  if (!checkObject(v, field,
                   {"kernel", "grid", "block", "shared_memory_bytes",
                    "params"}))
    return false;
  const json::Value *kernel = member(v, field, "kernel");
  if (!kernel || !string(*kernel, sub(field, "kernel"), launch.kernel))
    return false;
  if (!readLaunchDims(v, field, launch))
    return false;
  if (const json::Value *shared =
          member(v, field, "shared_memory_bytes", false)) {
    int64_t bytes;
    if (!integer(*shared, sub(field, "shared_memory_bytes"), 0,
                 std::numeric_limits<int32_t>::max(), bytes))
      return false;
    launch.sharedMemoryBytes = uint32_t(bytes);
  }
  const json::Value *params = arrayMember(v, field, "params");
  if (!params)
    return false;
  std::string pField = sub(field, "params");
  for (size_t j = 0; j < params->elements.size(); ++j) {
    LaunchParam param;
    if (!readLaunchParam(params->elements[j], at(pField, j), param))
      return false;
    launch.params.push_back(param);
  }
  return true;
}

bool Reader::readLaunchDims(const json::Value &v, const std::string &field,
                            Launch &launch) {
  // kMaxGridDims, kMaxBlockDims: the limits of every supported chip.
  struct Dims {
    const char *key;
    std::array<uint32_t, 3> *value;
    std::array<int64_t, 3> max;
  };
  for (Dims dims : {Dims{"grid", &launch.grid, kMaxGridDims},
                    Dims{"block", &launch.block, kMaxBlockDims}}) {
    bool grid = dims.value == &launch.grid;
    const json::Value *d = member(v, field, dims.key);
    if (!d)
      return false;
    std::string dField = sub(field, dims.key);
    if (!d->isArray() || d->elements.size() != 3)
      return fail(*d, dField,
                  "expected an array of 3 sizes [x, y, z], got " +
                      (d->isArray() ? std::to_string(d->elements.size()) +
                                          " elements"
                                    : describeValue(*d)));
    for (size_t j = 0; j < 3; ++j) {
      int64_t size;
      // The grid may be a size: 0 (an empty op) skips the launch, and the
      // value stands at 1 until the size is bound.
      if (grid ? !sizeOperand(d->elements[j], at(dField, j), 1, dims.max[j], 0,
                              int64_t(out.sizes.size()), 1,
                              launch.gridOperands[j], size)
               : !integer(d->elements[j], at(dField, j), 1, dims.max[j], size))
        return false;
      (*dims.value)[j] = uint32_t(size);
    }
  }
  int64_t threads =
      int64_t(launch.block[0]) * launch.block[1] * launch.block[2];
  if (threads > kMaxThreadsPerBlock)
    return fail(*v.find("block"), sub(field, "block"),
                std::to_string(threads) + " threads per block, more than the " +
                    std::to_string(kMaxThreadsPerBlock) + " of every chip");
  return true;
}

bool Reader::readLaunchParam(const json::Value &p, const std::string &field,
                             LaunchParam &param) {
  if (!checkObject(p, field, {"buffer", "i32", "i64", "f32"}))
    return false;
  if (p.keys.size() != 1)
    return fail(p, field,
                "expected exactly one of \"buffer\", \"i32\", \"i64\" or "
                "\"f32\", got " +
                    std::to_string(p.keys.size()));
  const std::string &kind = p.keys[0];
  const json::Value &value = p.elements[0];
  std::string vField = field + "." + kind;
  if (kind == "buffer") {
    param.kind = LaunchParam::Kind::Buffer;
    if (!integer(value, vField, 0, std::numeric_limits<int64_t>::max(),
                 param.buffer))
      return false;
    const Buffer *b = out.findBuffer(param.buffer);
    if (!b)
      return fail(value, vField,
                  "no buffer has id " + std::to_string(param.buffer));
    if (!b->hasDeviceMemory())
      return fail(value, vField, noDeviceMemory(*b));
  } else if (kind == "i32") {
    param.kind = LaunchParam::Kind::I32;
    if (!sizeOperand(value, vField, std::numeric_limits<int32_t>::min(),
                     std::numeric_limits<int32_t>::max(), 0,
                     int64_t(out.sizes.size()), 0, param.operand,
                     param.integer))
      return false;
  } else if (kind == "i64") {
    param.kind = LaunchParam::Kind::I64;
    if (!sizeOperand(value, vField, std::numeric_limits<int64_t>::min(),
                     std::numeric_limits<int64_t>::max(), 0,
                     int64_t(out.sizes.size()), 0, param.operand,
                     param.integer))
      return false;
  } else {
    param.kind = LaunchParam::Kind::F32;
    if (!value.isNumber() || std::fabs(value.number) > double(FLT_MAX))
      return fail(value, vField,
                  "expected a number in the f32 range, got " +
                      describeValue(value));
    param.f32 = float(value.number);
  }
  return true;
}

} // namespace detail
} // namespace indexpool::runtime
