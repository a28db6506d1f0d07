//===- Module.h - IndexPool IR held by the embedding API --------*- C++ -*-===//
//
// A parsed and verified MLIR module of indexpool functions, with the MLIR
// context it lives in (one per Module: modules are independent and may be
// used from different threads; one Module from one thread at a time). No
// MLIR header is needed to use it.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_API_MODULE_H
#define INDEXPOOL_API_MODULE_H

#include "indexpool/API/Status.h"
#include "indexpool/API/Tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace indexpool {

/// A function's name and the types of its arguments and results.
struct FunctionSignature {
  std::string name;
  std::vector<TensorType> arguments;
  std::vector<TensorType> results;
  /// Per argument, the operand it fills as the op reference names it
  /// ("pages", "block_table"; "" when no indexpool op names it), for
  /// messages.
  std::vector<std::string> argumentNames;
  /// "input #i (name)", or "input #i" for an unnamed argument.
  std::string inputLabel(size_t i) const {
    std::string label = "input #" + std::to_string(i);
    if (i < argumentNames.size() && !argumentNames[i].empty())
      label += " (" + argumentNames[i] + ")";
    return label;
  }
};

class Module {
public:
  /// Parses and verifies `text` (MLIR assembly). On failure returns null and
  /// sets `status` to the diagnostics, each "NAME:line:col: error: ...".
  static std::unique_ptr<Module> parse(const std::string &text,
                                       Status &status,
                                       const std::string &name = "<string>");
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// The public functions with a body, in the order they appear: the
  /// entry points (private functions are helpers of these).
  std::vector<std::string> functionNames() const;
  /// The signature of function `name` (with or without the @). Arguments
  /// and results must be ranked tensors of the DType element types.
  Status signature(const std::string &name, FunctionSignature &out) const;
  /// The module as MLIR assembly.
  std::string str() const;

  /// The implementation (MLIR context and module), for the compiler entry
  /// points; opaque to users. Compiled functions share it: they stay valid
  /// after the Module is destroyed.
  struct Impl;
  const std::shared_ptr<Impl> &impl() const { return implementation; }

private:
  explicit Module(std::shared_ptr<Impl> implementation);
  std::shared_ptr<Impl> implementation;
};

} // namespace indexpool

#endif // INDEXPOOL_API_MODULE_H
