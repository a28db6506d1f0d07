//===- ManifestReader.h - reading a manifest is validating it ---*- C++ -*-===//
//
// Internal to the runtime: the Reader that turns a manifest's JSON into a
// Manifest (parseManifest, bindSizes). Reading is validation: every field is
// checked where it is read, and the first problem ends the load with one
// line that names the file, the place (line:column of the offending value)
// and the field, e.g. "buffers[2].shape[1]". The computes are then run
// shapes-only through the same code that runs them on data
// (ReferenceRun.cpp), so a manifest that loads can be run by the reference.
//
// A manifest with sizes is read twice by the same Reader: when loaded,
// without the sizes' values (the checks that need them wait), and by
// bindSizes, with them, which makes every check and every message the same
// as for a manifest written with those integers.
//
// One file per part of the format, as the Reader reads them:
//   ManifestReader.cpp    the JSON primitives and the top level (version,
//                         chip, function, binary, then the parts in order)
//   ManifestBuffers.cpp   sizes, buffers (in place included) and values
//   ManifestLaunches.cpp  kernels' signatures and launches
//   ManifestComputes.cpp  computes, their properties, and that every
//                         output and intermediate is defined
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_RUNTIME_MANIFESTREADER_H
#define INDEXPOOL_LIB_RUNTIME_MANIFESTREADER_H

#include "indexpool/Dialect/OpContract.h"
#include "indexpool/Runtime/Json.h"
#include "indexpool/Runtime/Manifest.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace indexpool::runtime::detail {

/// The names of `entries` (operands, results or properties of a contract).
template <typename T>
std::vector<const char *> namesOf(const std::vector<T> &entries) {
  std::vector<const char *> names;
  for (const T &entry : entries)
    names.push_back(entry.name);
  return names;
}

/// "a, b or c".
std::string listOf(const std::vector<const char *> &names);

bool contains(const std::vector<const char *> &names, std::string_view name);

/// A short description of a JSON value for "got ..." in messages.
std::string describeValue(const json::Value &v);

class Reader {
public:
  /// `values`: the sizes' values when binding; null when loading.
  Reader(const std::string &name, Manifest &out, std::string &error,
         const std::vector<int64_t> *values = nullptr)
      : name(name), out(out), error(error), values(values) {}

  bool read(const json::Value &root);

private:
  //===--------------------------------------------------------------------===//
  // JSON primitives (ManifestReader.cpp): each fails with the one line.
  //===--------------------------------------------------------------------===//

  bool fail(const json::Value &at, const std::string &field,
            const std::string &what) {
    error = name + ":" + at.location() + ": " +
            (field.empty() ? "" : field + ": ") + what;
    return false;
  }

  /// `object` (named `field`) is an object whose keys are all `allowed`.
  bool checkObject(const json::Value &object, const std::string &field,
                   const std::vector<const char *> &allowed);
  /// Member `key` of `object`; fails (and returns nullptr) when a required
  /// one is missing.
  const json::Value *member(const json::Value &object, const std::string &field,
                            const char *key, bool required = true);
  /// `v` (named `field`) is an array.
  bool checkArray(const json::Value &v, const std::string &field);
  /// Required member `key` of `object`, an array; nullptr (after failing)
  /// when it is missing or not an array.
  const json::Value *arrayMember(const json::Value &object,
                                 const std::string &field, const char *key);

  static std::string sub(const std::string &field, const char *key) {
    return field.empty() ? key : field + "." + key;
  }
  static std::string at(const std::string &field, size_t i) {
    return field + "[" + std::to_string(i) + "]";
  }

  bool integer(const json::Value &v, const std::string &field, int64_t lo,
               int64_t hi, int64_t &value);
  bool string(const json::Value &v, const std::string &field,
              std::string &value);

  /// Whether the sizes' values are unknown (loading a manifest with sizes):
  /// the checks that need them are left to bindSizes.
  bool symbolic() const { return !out.sizes.empty() && !values; }

  /// A size operand: an integer in [lo, hi], or {"size": i} with i below
  /// `before` (the number of sizes; an entry's own index within `sizes`)
  /// whose value, when known, is in [sizeLo, hi]. `value` is the integer or
  /// the size's value (`placeholder` before binding).
  bool sizeOperand(const json::Value &v, const std::string &field, int64_t lo,
                   int64_t hi, int64_t sizeLo, int64_t before,
                   int64_t placeholder, SizeOperand &operand, int64_t &value);

  bool readBinary(const json::Value &v);

  //===--------------------------------------------------------------------===//
  // Sizes, buffers and values (ManifestBuffers.cpp)
  //===--------------------------------------------------------------------===//

  bool readSizes(const json::Value &v);
  bool checkSizesAgainstInputs(const json::Value &root);
  bool readBuffers(const json::Value &v);
  /// buffers[i] (`b`, named `field`), but for what needs the other buffers.
  bool readBuffer(const json::Value &b, const std::string &field,
                  Buffer &buffer);
  /// Input and output indices are 0..N-1, each once.
  bool checkIndices(const json::Value &v);
  /// Each `in_place_of` names an input of the output's type and shape, at
  /// most one output per input.
  bool checkInPlace(const json::Value &v);
  /// `inferred`: a null size is allowed (a value's size its compute gives,
  /// kInferredSize until then).
  bool readShape(const json::Value &shape, const std::string &field,
                 std::vector<int64_t> &sizes, std::vector<SizeOperand> &dims,
                 bool inferred = false);
  bool readValues(const json::Value &v);

  //===--------------------------------------------------------------------===//
  // Kernels and launches (ManifestLaunches.cpp)
  //===--------------------------------------------------------------------===//

  bool readKernels(const json::Value &v);
  bool readLaunches(const json::Value &v);
  bool readLaunch(const json::Value &v, const std::string &field,
                  Launch &launch);
  /// The grid and the block, within the limits of every chip.
  bool readLaunchDims(const json::Value &v, const std::string &field,
                      Launch &launch);
  /// One of a launch's "params": {"buffer": id} or {"i32"|"i64"|"f32": x}.
  bool readLaunchParam(const json::Value &p, const std::string &field,
                       LaunchParam &param);

  //===--------------------------------------------------------------------===//
  // Computes (ManifestComputes.cpp)
  //===--------------------------------------------------------------------===//

  bool readComputes(const json::Value &v);
  bool readCompute(const json::Value &v, const std::string &field,
                   Compute &compute);
  /// "operands" (`operands`, named `field`): an object from operand name to
  /// the id of a buffer that has a value.
  bool readOperands(const json::Value &operands, const std::string &field,
                    const mlir::indexpool::OpContract &op, Compute &compute);
  /// "results" (`results`, named `field`): new ids in the op's result order.
  bool readResults(const json::Value &results, const std::string &field,
                   const mlir::indexpool::OpContract &op, Compute &compute);
  /// What the reference computes from the operands' shapes is what the
  /// result buffers declare (and fills in an intermediate's null sizes).
  bool checkResultShapes(const json::Value &v, const std::string &named,
                         const json::Value &results, const std::string &field,
                         const mlir::indexpool::OpContract &op,
                         const Compute &compute);
  bool readProperties(const json::Value *v, const json::Value &computeValue,
                      const std::string &field,
                      const mlir::indexpool::OpContract &op, Compute &compute);
  bool checkDefinitions(const json::Value &root);

  const std::string &name;
  Manifest &out;
  std::string &error;
  const std::vector<int64_t> *values;
  /// While reading sizes[i]: i (its operands may only name earlier sizes).
  int64_t readingSize = -1;
  /// For messages: where each buffer was declared (position in "buffers").
  std::map<int64_t, size_t> bufferPositions;
  /// Intermediates declared in "values" only (position there).
  std::map<int64_t, size_t> valuePositions;
  /// Ids that have a value so far (inputs, then compute results), with the
  /// compute that defined them (-1 for inputs).
  std::map<int64_t, int64_t> defined;
};

} // namespace indexpool::runtime::detail

#endif // INDEXPOOL_LIB_RUNTIME_MANIFESTREADER_H
