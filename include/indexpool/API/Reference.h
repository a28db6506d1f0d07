//===- Reference.h - the float64 reference through the API ------*- C++ -*-===//
//
// The checks indexpool-run --verify makes, for embedders and notebooks: the
// function evaluated op by op in float64 (the project's reference
// semantics), and results compared with it under the tolerances the element
// types allow (docs/robustness.md): normwise relative error for floats, codes
// within one step for quantized results, token selections equal up to near
// ties of their logits.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_API_REFERENCE_H
#define INDEXPOOL_API_REFERENCE_H

#include "indexpool/API/Module.h"
#include "indexpool/API/Status.h"
#include "indexpool/API/Tensor.h"

#include <string>
#include <vector>

namespace indexpool {

/// A result of the reference: values in float64 (codes decoded, integers
/// exact), row-major.
struct ReferenceTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<double> values;
};

/// Evaluates function `name` of `module` in float64 on host `inputs`.
Status evaluateReference(const Module &module, const std::string &name,
                         const TensorRef *inputs, size_t numInputs,
                         std::vector<ReferenceTensor> &results);

/// Compares `outputs` (host buffers, one per result) of function `name` on
/// `inputs` with the reference. `report` gets one line per result ("result
/// #0 (tensor<...>): max_abs_err=... -> ok"); the status is an error when
/// any result is out of tolerance.
Status verifyAgainstReference(const Module &module, const std::string &name,
                              const TensorRef *inputs, size_t numInputs,
                              const TensorRef *outputs, size_t numOutputs,
                              std::vector<std::string> &report);

} // namespace indexpool

#endif // INDEXPOOL_API_REFERENCE_H
