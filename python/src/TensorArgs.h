//===- TensorArgs.h - Python objects as IndexPool TensorRefs ----*- C++ -*-===//
//
// The one place where the bindings turn what Python passes (NumPy arrays,
// the (address, dtype, shape, torch dtype) tuples indexpool.torch makes of
// tensors, DLPack capsules or objects with __dlpack__) into TensorRefs on
// the caller's memory, without copies, and results back into NumPy arrays.
// Element types follow python/README.md: bf16 as uint16 bit patterns,
// f8E4M3FN as uint8 codes.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_PYTHON_TENSORARGS_H
#define INDEXPOOL_PYTHON_TENSORARGS_H

#include "indexpool/API/Status.h"
#include "indexpool/API/Tensor.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace indexpool::python {

namespace py = pybind11;

/// indexpool.IndexPoolError (a RuntimeError), created by the module.
extern py::handle indexPoolError;

/// Raises IndexPoolError with the status's message.
[[noreturn]] void raise(const Status &status);

/// "tensor<?x128xbf16>".
std::string typeText(const TensorType &type);

/// The NumPy dtype that holds `dtype`'s storage format.
py::dtype numpyDType(DType dtype);

/// DLPack tensors borrowed for one call: their deleters run (with the GIL
/// held) when this goes away, after the call.
class BorrowedTensors {
public:
  BorrowedTensors() = default;
  BorrowedTensors(const BorrowedTensors &) = delete;
  BorrowedTensors &operator=(const BorrowedTensors &) = delete;
  ~BorrowedTensors();
  void add(void *managed) { tensors.push_back(managed); }

private:
  std::vector<void *> tensors;
};

/// Views `object` as a TensorRef of element type `expected` (a TypeError
/// when its dtype differs, a ValueError when it is not a C-contiguous host
/// buffer, or read-only where `writable`). `what` names it in messages
/// ("argument #1 (tensor<?x128xbf16>)").
TensorRef toTensorRef(py::handle object, DType expected, bool writable,
                      const std::string &what, BorrowedTensors &borrowed);

/// Where the tensors of a call live: host memory (NumPy, torch CPU,
/// DLPack), or device memory, each given as the tuple (address, DType code,
/// shape, dtype for messages) that indexpool.gpu makes from a CUDA tensor,
/// a __cuda_array_interface__ or the caller's (address, dtype, shape).
enum class Memory { Host, Device };

/// Converts `objects` against `types` (arguments or results of `function`).
/// Host memory is never read through a tuple: an address from the caller
/// is taken only for device memory, which the driver checks.
void toTensorRefs(py::sequence objects, const std::vector<TensorType> &types,
                  const std::string &function, const char *kind, bool writable,
                  BorrowedTensors &borrowed, std::vector<TensorRef> &refs,
                  Memory memory = Memory::Host);

/// `object` as T, or a TypeError "WHAT: expected EXPECTED, got TYPE"
/// (pybind11's own cast error names neither the argument nor the type).
template <typename T>
T castArgument(py::handle object, const std::string &what,
               const char *expected) {
  try {
    return object.cast<T>();
  } catch (const py::cast_error &) {
    throw py::type_error(what + ": expected " + expected + ", got " +
                         std::string(py::str(py::type::of(object))));
  }
}

/// A new NumPy array holding a copy of `ref`.
py::array copyToNumpy(const TensorRef &ref);

} // namespace indexpool::python

#endif // INDEXPOOL_PYTHON_TENSORARGS_H
