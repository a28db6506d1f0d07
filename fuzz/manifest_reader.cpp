//===- manifest_reader.cpp - fuzz the JSON and manifest readers -----------===//
//
// Input: the text of a manifest. The JSON reader must accept it or fail with
// one "LINE:COLUMN: what" line; parseManifest must accept it or fail with one
// line that starts with the manifest's name. An accepted manifest must be
// consistent: every launch parameter names a buffer with device memory,
// inputs and outputs are numbered 0, 1, ... without gaps, sizes do not
// overflow.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "indexpool/Runtime/Json.h"
#include "indexpool/Runtime/Manifest.h"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>

using namespace indexpool;
using indexpool::fuzz::finding;

static bool isOneLine(const std::string &text) {
  return !text.empty() && text.find('\n') == std::string::npos;
}

static void checkManifest(const runtime::Manifest &manifest) {
  for (const runtime::Buffer &buffer : manifest.buffers) {
    // The element count in 128 bits: no size is negative and the byte size
    // fits int64.
    __int128 elements = 1;
    bool zero = false;
    for (int64_t size : buffer.shape) {
      if (size < 0)
        finding("accepted a negative size in buffer " +
                std::to_string(buffer.id));
      zero |= size == 0;
      // Saturating at 2^64 keeps the product in 128 bits.
      elements = zero ? 0 : std::min<__int128>(elements * size, __int128(1) << 64);
    }
    if (elements > std::numeric_limits<int64_t>::max() / 8)
      finding("accepted buffer " + std::to_string(buffer.id) +
              " whose byte size overflows");
    if (buffer.numElements() != elements || buffer.sizeInBytes() < 0)
      finding("buffer " + std::to_string(buffer.id) +
              " has inconsistent sizes");
  }
  std::vector<const runtime::Buffer *> inputs = manifest.inputs();
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i] || inputs[i]->index != int64_t(i))
      finding("input buffers are not numbered 0, 1, ...");
  std::vector<const runtime::Buffer *> outputs = manifest.outputs();
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!outputs[i] || outputs[i]->index != int64_t(i))
      finding("output buffers are not numbered 0, 1, ...");
  for (const runtime::Launch &launch : manifest.launches) {
    for (uint32_t size : launch.grid)
      if (size == 0)
        finding("accepted a launch of kernel '" + launch.kernel +
                "' with a zero grid size");
    for (uint32_t size : launch.block)
      if (size == 0)
        finding("accepted a launch of kernel '" + launch.kernel +
                "' with a zero block size");
    for (const runtime::LaunchParam &param : launch.params) {
      if (param.kind != runtime::LaunchParam::Kind::Buffer)
        continue;
      const runtime::Buffer *buffer = manifest.findBuffer(param.buffer);
      if (!buffer || !buffer->hasDeviceMemory())
        finding("a parameter of kernel '" + launch.kernel + "' names buffer " +
                std::to_string(param.buffer) + " without device memory");
    }
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);

  runtime::json::Value value;
  std::string error;
  if (!runtime::json::parse(text, value, error) && !isOneLine(error))
    finding("json::parse failed without one line: '" + error + "'");
  // The depth pre-check agrees with the parser's own limit.
  std::string depthError;
  if (!runtime::json::checkNestingDepth(text, depthError) && error.empty())
    finding("json::parse accepted what checkNestingDepth rejects: " +
            depthError);

  runtime::Manifest manifest;
  error.clear();
  if (!runtime::parseManifest(text, "fuzz.json", "/nonexistent", manifest,
                              error)) {
    if (!isOneLine(error) || error.rfind("fuzz.json", 0) != 0)
      finding("parseManifest failed without one line starting with the "
              "name: '" +
              error + "'");
    return 0;
  }
  checkManifest(manifest);
  return 0;
}
