//===- CpuFunction.cpp - calls of a JIT-compiled function -----------------===//

#include "CpuFunctionImpl.h"

#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Evaluator/Evaluator.h"
#include "indexpool/API/Tensor.h"
#include "indexpool/Runtime/FileRead.h"

#include <chrono>
#include <cstring>

using namespace indexpool;

std::unique_ptr<CpuFunction>
indexpool::makeCpuFunction(std::unique_ptr<CpuFunction::Impl> implementation) {
  return std::unique_ptr<CpuFunction>(
      new CpuFunction(std::move(implementation)));
}

CpuFunction::CpuFunction(std::unique_ptr<Impl> implementation)
    : implementation(std::move(implementation)) {}
CpuFunction::~CpuFunction() = default;

const FunctionSignature &CpuFunction::signature() const {
  return implementation->signature;
}

static bool sameShape(const TensorRef &t, const std::vector<int64_t> &shape) {
  return size_t(t.rank) == shape.size() &&
         std::equal(shape.begin(), shape.end(), t.shape);
}

Status CpuFunction::Impl::validate(const TensorRef *inputs, size_t numInputs) {
  const std::vector<TensorType> &arguments = signature.arguments;
  if (numInputs != arguments.size())
    return Status::error("@" + signature.name + " takes " +
                         std::to_string(arguments.size()) + " inputs, got " +
                         std::to_string(numInputs));
  bool same = validated && !checksValues;
  for (size_t i = 0; i < numInputs; ++i) {
    if (Status s = api::checkTensor(inputs[i], arguments[i],
                                    signature.inputLabel(i));
        !s)
      return s;
    same = same && sameShape(inputs[i], inputShapes[i]);
  }
  if (same)
    return Status();

  // New shapes (or values that select pages): the reference evaluator
  // checks every size relation and computes the result shapes, shapes
  // only: float data is not read.
  validated = false;
  std::vector<ref::HostTensor> described(numInputs);
  for (size_t i = 0; i < numInputs; ++i) {
    DType dtype = inputs[i].dtype;
    bool integer = dtype == DType::I32 || dtype == DType::I64;
    if (checksValues && integer) {
      described[i] = api::toHostTensor(inputs[i]);
    } else {
      described[i].type = dtype;
      described[i].shape = inputs[i].sizes();
    }
  }
  std::string error;
  mlir::FailureOr<std::vector<ref::HostTensor>> predicted =
      mlir::indexpool::evaluateFunction(func, described, error,
                                        /*shapesOnly=*/true);
  if (mlir::failed(predicted))
    return Status::error(error);
  resultShapes.clear();
  for (auto [i, result] : llvm::enumerate(*predicted)) {
    int64_t elements = ref::numElements(result.shape);
    if (elements < 0 || elements > runtime::kMaxHostElements)
      return Status::error("result #" + std::to_string(i) + " would be " +
                           ref::shapeString(result.shape) +
                           ", too large (at most 2^30 elements)");
    resultShapes.push_back(result.shape);
  }
  inputShapes.clear();
  for (size_t i = 0; i < numInputs; ++i)
    inputShapes.push_back(inputs[i].sizes());
  validated = true;
  return Status();
}

Status CpuFunction::Impl::run(const TensorRef *inputs, size_t numInputs) {
  addresses.resize(numInputs);
  shapeRefs.resize(numInputs);
  for (size_t i = 0; i < numInputs; ++i) {
    addresses[i] = inputs[i].data;
    shapeRefs[i] = llvm::ArrayRef<int64_t>(inputs[i].shape,
                                           size_t(inputs[i].rank));
  }
  std::string error;
  if (mlir::failed(jit->callOnBuffers(addresses, shapeRefs, error)))
    return Status::error(error);
  for (size_t i = 0; i < resultShapes.size(); ++i) {
    mlir::indexpool::CPUJitFunction::ResultView view = jit->result(unsigned(i));
    if (!std::equal(view.shape.begin(), view.shape.end(),
                    resultShapes[i].begin(), resultShapes[i].end()))
      return Status::error("internal error: result #" + std::to_string(i) +
                           " is " + ref::shapeString(view.shape.vec()) +
                           ", but the reference evaluator predicts " +
                           ref::shapeString(resultShapes[i]));
  }
  return Status();
}

/// Whether a view with these sizes and strides is dense and row-major.
static bool isDense(llvm::ArrayRef<int64_t> shape,
                    llvm::ArrayRef<int64_t> strides) {
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return true;
}

void CpuFunction::Impl::copyResult(unsigned i, char *destination) const {
  mlir::indexpool::CPUJitFunction::ResultView view = jit->result(i);
  size_t bytes = dtypeBytes(signature.results[i].dtype);
  int64_t elements = ref::numElements(view.shape.vec());
  if (elements == 0)
    return;
  const char *first = view.data + view.offset * int64_t(bytes);
  if (isDense(view.shape, view.strides)) {
    // A result updated in place may already be the destination.
    if (first != destination)
      std::memmove(destination, first, size_t(elements) * bytes);
    return;
  }
  // A strided view (a slice the function returns): element by element.
  size_t rank = view.shape.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < elements; ++linear) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d)
      offset += index[d] * view.strides[d];
    std::memcpy(destination + size_t(linear) * bytes,
                first + offset * int64_t(bytes), bytes);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < view.shape[d])
        break;
      index[d] = 0;
    }
  }
}

Status CpuFunction::resultShapes(const TensorRef *inputs, size_t numInputs,
                                 std::vector<std::vector<int64_t>> &shapes) {
  if (Status s = implementation->validate(inputs, numInputs); !s)
    return s;
  shapes = implementation->resultShapes;
  return Status();
}

Status CpuFunction::call(const TensorRef *inputs, size_t numInputs,
                         const TensorRef *outputs, size_t numOutputs) {
  Impl &impl = *implementation;
  if (Status s = impl.validate(inputs, numInputs); !s)
    return s;
  const std::vector<TensorType> &results = impl.signature.results;
  if (numOutputs != results.size())
    return Status::error("@" + impl.signature.name + " has " +
                         std::to_string(results.size()) + " results, got " +
                         std::to_string(numOutputs) + " outputs");
  for (size_t i = 0; i < numOutputs; ++i) {
    TensorType expected{results[i].dtype, impl.resultShapes[i]};
    if (Status s = api::checkTensor(outputs[i], expected,
                                    "output #" + std::to_string(i));
        !s)
      return s;
  }
  if (Status s = impl.run(inputs, numInputs); !s)
    return s;
  for (size_t i = 0; i < numOutputs; ++i)
    impl.copyResult(unsigned(i), static_cast<char *>(outputs[i].data));
  impl.jit->releaseResults();
  return Status();
}

Status CpuFunction::call(const TensorRef *inputs, size_t numInputs,
                         std::vector<TensorRef> &results) {
  Impl &impl = *implementation;
  if (Status s = impl.validate(inputs, numInputs); !s)
    return s;
  if (Status s = impl.run(inputs, numInputs); !s)
    return s;
  size_t count = impl.signature.results.size();
  results.resize(count);
  impl.stridedCopies.resize(count);
  for (size_t i = 0; i < count; ++i) {
    mlir::indexpool::CPUJitFunction::ResultView view = impl.jit->result(unsigned(i));
    DType dtype = impl.signature.results[i].dtype;
    TensorRef &result = results[i];
    result = TensorRef(nullptr, dtype, impl.resultShapes[i]);
    size_t bytes = dtypeBytes(dtype);
    if (isDense(view.shape, view.strides)) {
      result.data = const_cast<char *>(view.data) + view.offset * int64_t(bytes);
      continue;
    }
    std::vector<char> &copy = impl.stridedCopies[i];
    copy.resize(size_t(ref::numElements(impl.resultShapes[i])) * bytes);
    impl.copyResult(unsigned(i), copy.data());
    result.data = copy.data();
  }
  return Status();
}

Status CpuFunction::timeKernel(const TensorRef *inputs, size_t numInputs,
                               int runs, std::vector<double> &microseconds) {
  Impl &impl = *implementation;
  if (runs < 0)
    return Status::error("runs must be >= 0, got " + std::to_string(runs));
  if (Status s = impl.validate(inputs, numInputs); !s)
    return s;
  microseconds.clear();
  for (int run = 0; run < runs; ++run) {
    auto start = std::chrono::steady_clock::now();
    if (Status s = impl.run(inputs, numInputs); !s)
      return s;
    impl.jit->releaseResults();
    auto stop = std::chrono::steady_clock::now();
    microseconds.push_back(
        std::chrono::duration<double, std::micro>(stop - start).count());
  }
  return Status();
}
