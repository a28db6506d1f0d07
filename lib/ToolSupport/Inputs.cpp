//===- Inputs.cpp - .npy inputs checked against their types ---------------===//

#include "indexpool/ToolSupport/Inputs.h"

#include "indexpool/Dialect/Shapes.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/Npy.h"
#include "indexpool/Runtime/Storage.h"

#include <cstring>
#include <limits>

namespace indexpool::tools {

using mlir::indexpool::kShapeDynamic;

namespace {

/// The NumPy name of a canonical descriptor, for messages.
std::string dtypeName(const std::string &dtype) {
  static const std::pair<const char *, const char *> names[] = {
      {"<f2", "float16"}, {"<f4", "float32"}, {"<f8", "float64"},
      {"|i1", "int8"},    {"|u1", "uint8"},   {"<i4", "int32"},
      {"<i8", "int64"}};
  for (auto [descriptor, name] : names)
    if (dtype == descriptor)
      return name;
  return dtype;
}

/// "an int32", "a float32".
std::string withArticle(const std::string &noun) {
  bool vowel = !noun.empty() && std::strchr("aeiou", noun[0]);
  return (vowel ? "an " : "a ") + noun;
}

} // namespace

std::string hostElementLimit() {
  constexpr int64_t limit = runtime::kMaxHostElements;
  static_assert(limit > 0 && (limit & (limit - 1)) == 0,
                "messages state the limit as a power of two");
  int exponent = 0;
  while ((int64_t(1) << exponent) < limit)
    ++exponent;
  return "at most 2^" + std::to_string(exponent) + " elements";
}

int64_t checkedElements(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t size : shape) {
    if (size < 0)
      return -1;
    if (size != 0 && count > std::numeric_limits<int64_t>::max() / size)
      return -1;
    count *= size;
  }
  return count;
}

bool fitsHostLimit(const std::vector<int64_t> &shape) {
  int64_t elements = checkedElements(shape);
  return elements >= 0 && elements <= runtime::kMaxHostElements;
}

std::string stripAt(std::string_view option) {
  if (!option.empty() && option[0] == '@')
    option.remove_prefix(1);
  return std::string(option);
}

bool fitsInputType(const std::vector<int64_t> &shape, const InputType &type) {
  if (shape.size() != type.shape.size())
    return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (type.shape[i] != kShapeDynamic && shape[i] != type.shape[i])
      return false;
  return true;
}

bool readInputFile(size_t index, const std::string &option,
                   runtime::NpyArray &array, std::string &error) {
  std::string why;
  if (runtime::readNpy(stripAt(option), array, why))
    return true;
  error = "input #" + std::to_string(index) + ": " + why;
  return false;
}

bool convertInput(size_t index, const std::string &option,
                  const runtime::NpyArray &array, const InputType &type,
                  std::string_view noun, ref::HostTensor &tensor,
                  std::string &error) {
  std::string which = "input #" + std::to_string(index) + " (" +
                      stripAt(option) + ")";
  std::string named = std::string(noun) + " #" + std::to_string(index);
  std::string expected = runtime::expectedNpyDtypes(array.dtype, type.element);
  if (!expected.empty()) {
    error = which + " is " + withArticle(dtypeName(array.dtype)) +
            " array, but " + named + " of type " + type.text + " needs " +
            withArticle(expected) + " array";
    return false;
  }
  if (!fitsInputType(array.shape, type)) {
    error = which + " is " + ref::shapeString(array.shape) + ", but " + named +
            " has type " + type.text;
    return false;
  }
  // No size check here: readNpy refuses arrays over kMaxHostElements.
  std::string why;
  if (!runtime::npyToHostTensor(array, type.element, tensor, why)) {
    error = which + ": " + why;
    return false;
  }
  return true;
}

bool loadInputFiles(const std::vector<std::string> &options,
                    const std::vector<InputType> &types, std::string_view noun,
                    std::vector<ref::HostTensor> &inputs, std::string &error) {
  for (size_t i = 0; i < types.size(); ++i) {
    runtime::NpyArray array;
    if (!readInputFile(i, options[i], array, error) ||
        !convertInput(i, options[i], array, types[i], noun,
                      inputs.emplace_back(), error))
      return false;
  }
  return true;
}

} // namespace indexpool::tools
