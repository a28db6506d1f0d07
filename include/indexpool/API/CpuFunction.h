//===- CpuFunction.h - a function compiled for the CPU ----------*- C++ -*-===//
//
// What compileForCpu returns: the function lowered to LLVM and JIT-compiled
// (OpenMP threads over rows). It is called on the caller's host buffers:
// inputs are read where they are, never copied. Results go either into the
// caller's buffers (one copy of each result from the buffer the compiled code
// wrote), or stay in buffers this object owns, which the call hands back.
//
// Each call checks the inputs against the signature (element types, ranks,
// static sizes) and the sizes relations of every op (the ones a dynamic
// function leaves to run time), before any compiled code runs: bad shapes
// get a Status, never a crash. The checks of a shape seen in the previous
// call are not redone, and buffers are reused from call to call: with the
// same shapes, a call allocates nothing.
//
// A CpuFunction is used by one thread at a time (calls run their own loops
// on OpenMP threads).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_API_CPUFUNCTION_H
#define INDEXPOOL_API_CPUFUNCTION_H

#include "indexpool/API/Module.h"
#include "indexpool/API/Status.h"
#include "indexpool/API/Tensor.h"

#include <memory>
#include <vector>

namespace indexpool {

class CpuFunction {
public:
  ~CpuFunction();
  CpuFunction(const CpuFunction &) = delete;
  CpuFunction &operator=(const CpuFunction &) = delete;

  const FunctionSignature &signature() const;

  /// The shapes of the results for inputs of these shapes (checks them as a
  /// call would): what a caller allocates before call(..., outputs).
  Status resultShapes(const TensorRef *inputs, size_t numInputs,
                      std::vector<std::vector<int64_t>> &shapes);

  /// Runs the function and copies result i into outputs[i], which must have
  /// the result's element type and shape (resultShapes()).
  Status call(const TensorRef *inputs, size_t numInputs,
              const TensorRef *outputs, size_t numOutputs);

  /// Runs the function; `results` receives views of buffers owned by this
  /// CpuFunction, valid until the next call or its destruction (read or
  /// copy them before calling again).
  Status call(const TensorRef *inputs, size_t numInputs,
              std::vector<TensorRef> &results);

  /// Times the compiled code alone `runs` times on `inputs` (checked once;
  /// no result is copied): the anchor the API's per-call cost is measured
  /// against. `microseconds` gets one time per run.
  Status timeKernel(const TensorRef *inputs, size_t numInputs, int runs,
                    std::vector<double> &microseconds);

  Status call(const std::vector<TensorRef> &inputs,
              const std::vector<TensorRef> &outputs) {
    return call(inputs.data(), inputs.size(), outputs.data(), outputs.size());
  }

  struct Impl;

private:
  friend std::unique_ptr<CpuFunction>
  makeCpuFunction(std::unique_ptr<Impl> implementation);
  explicit CpuFunction(std::unique_ptr<Impl> implementation);
  std::unique_ptr<Impl> implementation;
};

} // namespace indexpool

#endif // INDEXPOOL_API_CPUFUNCTION_H
