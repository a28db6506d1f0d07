//===- Manifest.cpp - what indexpool-compile emits next to kernels --------===//
//
// The Manifest's accessors and the entry points: parseManifest and
// bindSizes read the JSON with the Reader (ManifestReader.h, which says
// which file reads which part of the format), loadManifest and readBinary
// read the files.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Manifest.h"

#include "ManifestReader.h"

#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/Json.h"

#include <algorithm>
#include <memory>

namespace indexpool::runtime {

using detail::Reader;
using ref::ElementType;

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

const char *bufferRoleName(BufferRole role) {
  switch (role) {
  case BufferRole::Input:
    return "input";
  case BufferRole::Output:
    return "output";
  case BufferRole::Temporary:
    return "temporary";
  case BufferRole::Intermediate:
    return "intermediate";
  }
  return "?";
}

int64_t Buffer::numElements() const { return ref::numElements(shape); }

int64_t Buffer::sizeInBytes() const {
  return numElements() * ref::elementTypeBytes(type);
}

const Kernel *Manifest::findKernel(std::string_view name) const {
  for (const Kernel &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

int64_t Compute::operand(std::string_view name) const {
  for (const auto &[operandName, id] : operands)
    if (operandName == name)
      return id;
  return -1;
}

const Buffer *Manifest::findBuffer(int64_t id) const {
  for (const Buffer &b : buffers)
    if (b.id == id)
      return &b;
  return nullptr;
}

static std::vector<const Buffer *> buffersWithRole(const Manifest &m,
                                                   BufferRole role) {
  std::vector<const Buffer *> result;
  for (const Buffer &b : m.buffers)
    if (b.role == role)
      result.push_back(&b);
  std::sort(result.begin(), result.end(),
            [](const Buffer *a, const Buffer *b) {
              return a->index < b->index;
            });
  return result;
}

std::vector<const Buffer *> Manifest::inputs() const {
  return buffersWithRole(*this, BufferRole::Input);
}

std::vector<const Buffer *> Manifest::outputs() const {
  return buffersWithRole(*this, BufferRole::Output);
}

const Compute *Manifest::definingCompute(int64_t id,
                                         size_t *resultIndex) const {
  for (const Compute &c : computes)
    for (size_t i = 0; i < c.results.size(); ++i)
      if (c.results[i] == id) {
        if (resultIndex)
          *resultIndex = i;
        return &c;
      }
  return nullptr;
}

std::string Manifest::resolvedBinaryPath() const {
  if (binaryPath.empty() || binaryPath[0] == '/' || directory.empty())
    return binaryPath;
  return directory + "/" + binaryPath;
}

bool parseManifest(std::string_view text, const std::string &name,
                   const std::string &directory, Manifest &out,
                   std::string &error) {
  out = Manifest();
  out.name = name;
  out.directory = directory;
  json::Value root;
  std::string why;
  if (!json::parse(text, root, why)) {
    error = name + ":" + why;
    return false;
  }
  Reader reader(name, out, error);
  if (!reader.read(root)) {
    out = Manifest();
    return false;
  }
  // bindSizes reads it again with the sizes' values.
  if (out.needsBinding())
    out.source = std::make_shared<const json::Value>(std::move(root));
  return true;
}

bool Manifest::usesSmCount() const {
  return std::any_of(sizes.begin(), sizes.end(), [](const SizeExpr &size) {
    return size.op == SizeExpr::Op::SmCount;
  });
}

std::string symbolicShapeString(const Buffer &buffer) {
  if (buffer.dims.size() != buffer.shape.size())
    return ref::shapeString(buffer.shape);
  std::string text = "[";
  for (size_t i = 0; i < buffer.dims.size(); ++i)
    text += (i ? ", " : "") + (buffer.dims[i].isSize()
                                   ? std::string("?")
                                   : std::to_string(buffer.dims[i].value));
  return text + "]";
}

bool bindSizes(const Manifest &symbolic,
               const std::vector<std::vector<int64_t>> &inputShapes,
               int64_t smCount, Manifest &concrete, std::string &error) {
  std::vector<const Buffer *> inputs = symbolic.inputs();
  if (inputShapes.size() != inputs.size()) {
    error = symbolic.name + " takes " + std::to_string(inputs.size()) +
            " input" + (inputs.size() == 1 ? "" : "s") + ", got " +
            std::to_string(inputShapes.size()) + " shapes";
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Buffer &b = *inputs[i];
    const std::vector<int64_t> &shape = inputShapes[i];
    bool fits = shape.size() == b.shape.size();
    for (size_t d = 0; fits && d < shape.size(); ++d) {
      bool isSize = d < b.dims.size() && b.dims[d].isSize();
      fits = shape[d] >= 0 && (isSize || shape[d] == b.shape[d]);
    }
    if (!fits) {
      error = "input #" + std::to_string(i) + " is " +
              ref::shapeString(shape) + ", but input #" + std::to_string(i) +
              " of " + symbolic.name + " has shape " + symbolicShapeString(b);
      return false;
    }
  }
  if (!symbolic.needsBinding()) {
    concrete = symbolic;
    return true;
  }
  if (!symbolic.source) {
    error = symbolic.name + ": a manifest with sizes needs its JSON to be "
                            "bound (parseManifest keeps it)";
    return false;
  }
  std::vector<int64_t> values;
  size_t entry = 0;
  std::string why;
  if (!evaluateSizes(symbolic.sizes, inputShapes, smCount, values, entry,
                     why)) {
    const json::Value *sizes = symbolic.source->find("sizes");
    error = symbolic.name + ":" + sizes->elements[entry].location() +
            ": sizes[" + std::to_string(entry) + "]: " + why;
    return false;
  }
  // The one validation, now with values: the same checks and messages as a
  // manifest written with these integers.
  Manifest result;
  result.name = symbolic.name;
  result.directory = symbolic.directory;
  result.sizeValues = values;
  Reader reader(symbolic.name, result, error, &values);
  if (!reader.read(*symbolic.source))
    return false;
  result.source = symbolic.source;
  concrete = std::move(result);
  return true;
}

bool loadManifest(const std::string &path, Manifest &out, std::string &error) {
  std::string text;
  if (!readFileWithLimit(path, kMaxJsonBytes, "a manifest", text, error))
    return false;
  size_t slash = path.rfind('/');
  std::string directory =
      slash == std::string::npos ? "." : path.substr(0, slash ? slash : 1);
  return parseManifest(text, path, directory, out, error);
}

bool readBinary(const Manifest &manifest, std::string &image,
                std::string &error) {
  std::string path = manifest.resolvedBinaryPath();
  std::string why;
  if (!readFileWithLimit(path, kMaxKernelBinaryBytes, "a kernel binary",
                         image, why)) {
    error = "the binary of " + manifest.name + " (binary.path \"" +
            manifest.binaryPath + "\"): " + why;
    return false;
  }
  if (image.empty()) {
    error = "the binary " + path + " is empty";
    return false;
  }
  if (manifest.binaryFormat == BinaryFormat::Cubin) {
    if (image.compare(0, 4, "\x7f" "ELF") != 0) {
      error = "the binary " + path +
              " is not a cubin (no ELF header), but binary.format says "
              "\"cubin\"";
      return false;
    }
  } else {
    if (image.find('\0') != std::string::npos) {
      error = "the binary " + path +
              " is not PTX text (it holds NUL bytes), but binary.format "
              "says \"ptx\"";
      return false;
    }
    image.push_back('\0'); // cuModuleLoadData reads PTX up to a NUL
  }
  return true;
}

std::string tensorTypeString(const std::vector<int64_t> &shape,
                             ElementType type) {
  std::string text = "tensor<";
  for (int64_t size : shape)
    text += std::to_string(size) + "x";
  return text + ref::elementTypeName(type) + ">";
}

} // namespace indexpool::runtime
