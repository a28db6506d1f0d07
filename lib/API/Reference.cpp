//===- Reference.cpp - the float64 reference and --verify's comparison ----===//

#include "indexpool/API/Reference.h"

#include "ModuleImpl.h"

#include "indexpool/API/Tensor.h"

#include "indexpool/Evaluator/Evaluator.h"
#include "indexpool/Runtime/Compare.h"

using namespace indexpool;

/// The inputs as reference tensors, checked against the signature.
static Status referenceInputs(const Module &module, const std::string &name,
                              const TensorRef *inputs, size_t numInputs,
                              mlir::func::FuncOp &func,
                              FunctionSignature &signature,
                              std::vector<ref::HostTensor> &hosts) {
  if (Status s = module.impl()->lookup(name, func); !s)
    return s;
  if (Status s = api::signatureOf(func, signature); !s)
    return s;
  if (numInputs != signature.arguments.size())
    return Status::error("@" + signature.name + " takes " +
                         std::to_string(signature.arguments.size()) +
                         " inputs, got " + std::to_string(numInputs));
  for (size_t i = 0; i < numInputs; ++i) {
    if (Status s = api::checkTensor(inputs[i], signature.arguments[i],
                                    signature.inputLabel(i));
        !s)
      return s;
    hosts.push_back(api::toHostTensor(inputs[i]));
  }
  return Status();
}

Status indexpool::evaluateReference(const Module &module,
                                    const std::string &name,
                                    const TensorRef *inputs, size_t numInputs,
                                    std::vector<ReferenceTensor> &results) {
  mlir::func::FuncOp func;
  FunctionSignature signature;
  std::vector<ref::HostTensor> hosts;
  if (Status s = referenceInputs(module, name, inputs, numInputs, func,
                                 signature, hosts);
      !s)
    return s;
  std::string error;
  mlir::FailureOr<std::vector<ref::HostTensor>> evaluated =
      mlir::indexpool::evaluateFunction(func, hosts, error);
  if (mlir::failed(evaluated))
    return Status::error(error);
  results.clear();
  for (ref::HostTensor &t : *evaluated)
    results.push_back({t.type, t.shape, std::move(t.data)});
  return Status();
}

Status indexpool::verifyAgainstReference(
    const Module &module, const std::string &name, const TensorRef *inputs,
    size_t numInputs, const TensorRef *outputs, size_t numOutputs,
    std::vector<std::string> &report) {
  mlir::func::FuncOp func;
  FunctionSignature signature;
  std::vector<ref::HostTensor> hosts;
  if (Status s = referenceInputs(module, name, inputs, numInputs, func,
                                 signature, hosts);
      !s)
    return s;
  std::string error;
  mlir::FailureOr<mlir::indexpool::ReferenceRun> reference =
      mlir::indexpool::evaluateReference(func, hosts, error);
  if (mlir::failed(reference))
    return Status::error(error);
  if (numOutputs != reference->results.size())
    return Status::error("@" + signature.name + " has " +
                         std::to_string(reference->results.size()) +
                         " results, got " + std::to_string(numOutputs) +
                         " outputs");
  report.clear();
  int failures = 0;
  for (size_t i = 0; i < numOutputs; ++i) {
    const ref::HostTensor &expected = reference->results[i];
    TensorType type{expected.type, expected.shape};
    if (Status s = api::checkTensor(outputs[i], type,
                                    "output #" + std::to_string(i));
        !s)
      return s;
    ref::HostTensor actual = api::toHostTensor(outputs[i]);
    const auto &selection = reference->selections[i];
    const auto &pages = reference->pageLayouts[i];
    runtime::Comparison comparison =
        pages ? runtime::comparePages(actual, expected, *pages)
              : runtime::compareWithReference(actual, expected,
                                              selection ? &*selection : nullptr);
    failures += !comparison.ok;
    report.push_back("result #" + std::to_string(i) + " (" +
                     ref::shapeString(expected.shape) + " " +
                     dtypeName(type.dtype) + "): " +
                     runtime::formatComparison(comparison, expected.type));
  }
  if (failures)
    return Status::error(std::to_string(failures) + " of " +
                         std::to_string(numOutputs) +
                         " results are out of tolerance");
  return Status();
}
