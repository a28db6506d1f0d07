//===- InputShape.cpp - "--input-shape=I:AxBxC" ---------------------------===//

#include "indexpool/Runtime/InputShape.h"

#include <charconv>

namespace indexpool::runtime {

/// A whole non-negative decimal number.
static bool parseSize(std::string_view text, int64_t &value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(),
                                   value);
  return !text.empty() && ec == std::errc() &&
         end == text.data() + text.size() && value >= 0;
}

bool parseInputShape(std::string_view text, size_t count,
                     std::map<size_t, std::vector<int64_t>> &shapes,
                     std::string &error, const char *noun) {
  std::string option = "--input-shape=" + std::string(text);
  size_t colon = text.find(':');
  int64_t index;
  if (colon == std::string_view::npos || colon + 1 == text.size() ||
      !parseSize(text.substr(0, colon), index)) {
    error = option + ": expected I:AxBxC (I the " + noun +
            " number, e.g. 0:1024x128)";
    return false;
  }
  if (uint64_t(index) >= count) {
    error = option + ": " + noun + " #" + std::to_string(index) +
            " does not exist (the function takes " + std::to_string(count) +
            " " + noun + (count == 1 ? ")" : "s)");
    return false;
  }
  if (shapes.count(size_t(index))) {
    error = std::string("--input-shape: ") + noun + " #" +
            std::to_string(index) + " is given twice";
    return false;
  }
  std::vector<int64_t> shape;
  std::string_view rest = text.substr(colon + 1);
  while (true) {
    size_t x = rest.find('x');
    std::string_view size = rest.substr(0, x);
    int64_t value;
    if (!parseSize(size, value)) {
      error = option + ": '" + std::string(size) + "' is not a size";
      return false;
    }
    shape.push_back(value);
    if (x == std::string_view::npos)
      break;
    rest = rest.substr(x + 1);
  }
  shapes[size_t(index)] = std::move(shape);
  return true;
}

} // namespace indexpool::runtime
