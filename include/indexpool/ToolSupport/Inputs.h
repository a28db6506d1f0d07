//===- Inputs.h - .npy inputs checked against their types -------*- C++ -*-===//
//
// What indexpool-run and indexpool-launch do with --input=@FILE.npy: read
// the file, check its dtype and shape against the type the input must have
// (an element type and a shape, kShapeDynamic where any size fits) and
// convert it to a host tensor, with the same messages. One element limit
// for every host tensor of both tools: runtime::kMaxHostElements. MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TOOLSUPPORT_INPUTS_H
#define INDEXPOOL_TOOLSUPPORT_INPUTS_H

#include "indexpool/Reference/HostTensor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace indexpool::runtime {
struct NpyArray;
} // namespace indexpool::runtime

namespace indexpool::tools {

/// "at most 2^30 elements": the limit runtime::kMaxHostElements as every
/// message about it states it (the .npy reader enforces the same).
std::string hostElementLimit();

/// The element count of `shape`, or -1 when a size is negative or the
/// count overflows int64.
int64_t checkedElements(const std::vector<int64_t> &shape);

/// Whether a host tensor of `shape` is within runtime::kMaxHostElements.
bool fitsHostLimit(const std::vector<int64_t> &shape);

/// "--input=@a.npy" and "--input=a.npy" name the same file.
std::string stripAt(std::string_view option);

/// The type an input must have.
struct InputType {
  ref::ElementType element = ref::ElementType::F32;
  /// kShapeDynamic (Dialect/Shapes.h) for a size any input may have.
  std::vector<int64_t> shape;
  /// As messages print it: "tensor<?x128xf32>".
  std::string text;
};

/// Whether `shape` has the rank of `type` and its static sizes.
bool fitsInputType(const std::vector<int64_t> &shape, const InputType &type);

/// Reads input #index from `option` (--input's value). On failure the
/// error is "input #I: WHY".
bool readInputFile(size_t index, const std::string &option,
                   runtime::NpyArray &array, std::string &error);

/// Checks `array` (read from `option`) against `type` and converts it. On
/// failure the error names the file and `noun` #index ("argument",
/// "input"), e.g. "input #0 (a.npy) is an int32 array, but argument #0 of
/// type tensor<4xf32> needs a float32 or float16 array".
bool convertInput(size_t index, const std::string &option,
                  const runtime::NpyArray &array, const InputType &type,
                  std::string_view noun, ref::HostTensor &tensor,
                  std::string &error);

/// readInputFile and convertInput, one file after the other: one --input
/// per type.
bool loadInputFiles(const std::vector<std::string> &options,
                    const std::vector<InputType> &types, std::string_view noun,
                    std::vector<ref::HostTensor> &inputs, std::string &error);

} // namespace indexpool::tools

#endif // INDEXPOOL_TOOLSUPPORT_INPUTS_H
