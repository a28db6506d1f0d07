//===- TensorArgs.cpp - Python objects as IndexPool TensorRefs ------------===//

#include "TensorArgs.h"

#include <cstring>

namespace indexpool::python {

py::handle indexPoolError;

void raise(const Status &status) {
  PyErr_SetString(indexPoolError.ptr(), status.message().c_str());
  throw py::error_already_set();
}

std::string typeText(const TensorType &type) {
  std::string text = "tensor<";
  for (int64_t size : type.shape)
    text += (size < 0 ? std::string("?") : std::to_string(size)) + "x";
  return text + dtypeName(type.dtype) + ">";
}

namespace {

/// NumPy's kind and item size of each DType's storage format, and the
/// NumPy and torch names messages use (ElementTypes.def's columns).
struct NumpyFormat {
  char kind;
  int itemsize;
  std::string name;
  std::string torchName;
};

NumpyFormat numpyFormat(DType dtype) {
  const ElementTypeInfo &info = elementTypeInfo(dtype);
  if (!info.allows(ElementUse::Tensor))
    return {'?', 0, "?", "?"}; // a page code type only: no tensor holds it
  // Floats NumPy lacks travel as their bit patterns.
  std::string patterns = info.isFloat() && info.numpyKind != 'f'
                             ? std::string(" (") + info.name + " bit patterns)"
                             : "";
  return {info.numpyKind, int(info.tensorBytes()), info.numpyName + patterns,
          std::string("torch.") + info.torchName + patterns};
}

[[noreturn]] void typeError(const std::string &message) {
  throw py::type_error(message);
}
[[noreturn]] void valueError(const std::string &message) {
  throw py::value_error(message);
}

template <typename SizeAt>
void setShape(TensorRef &ref, int64_t rank, const std::string &what,
              SizeAt sizeAt) {
  if (rank > kMaxRank)
    valueError(what + ": rank " + std::to_string(rank) + " is above " +
               std::to_string(kMaxRank));
  ref.rank = static_cast<int32_t>(rank);
  for (int64_t i = 0; i < rank; ++i)
    ref.shape[i] = sizeAt(i);
}

TensorRef fromNumpy(py::array array, DType expected, bool writable,
                    const std::string &what) {
  NumpyFormat format = numpyFormat(expected);
  py::dtype dtype = array.dtype();
  if (dtype.kind() != format.kind || dtype.itemsize() != format.itemsize ||
      dtype.byteorder() == '>')
    typeError(what + ": expected a NumPy array of " + format.name + ", got " +
              py::str(dtype).cast<std::string>());
  if (!(array.flags() & py::array::c_style))
    valueError(what + ": the array is not C-contiguous (the call reads it "
                      "in place; pass numpy.ascontiguousarray(x))");
  if (writable && !array.writeable())
    valueError(what + ": the array is read-only");
  TensorRef ref;
  ref.data = const_cast<void *>(array.data());
  ref.dtype = expected;
  setShape(ref, array.ndim(), what,
           [&](int64_t i) { return static_cast<int64_t>(array.shape(i)); });
  return ref;
}

/// A device tensor as indexpool.gpu gives it: (address, DType code, shape,
/// the dtype for messages).
TensorRef fromDeviceTuple(py::handle object, DType expected,
                          const std::string &what) {
  if (!py::isinstance<py::tuple>(object) || py::len(object) != 4)
    typeError(what + ": expected a CUDA tensor (address, dtype code, shape, "
                     "dtype), got " +
              py::str(py::type::of(object)).cast<std::string>());
  py::tuple tuple = py::reinterpret_borrow<py::tuple>(object);
  int code = castArgument<int>(tuple[1], what + " (dtype code)", "an int");
  if (code != static_cast<int>(expected))
    typeError(what + ": expected a tensor of " +
              numpyFormat(expected).torchName + ", got " +
              py::str(tuple[3]).cast<std::string>());
  std::vector<int64_t> shape = castArgument<std::vector<int64_t>>(
      tuple[2], what + " (shape)", "a sequence of ints");
  TensorRef ref;
  ref.data = reinterpret_cast<void *>(
      castArgument<uintptr_t>(tuple[0], what + " (address)", "an int"));
  ref.dtype = expected;
  setShape(ref, int64_t(shape.size()), what,
           [&](int64_t i) { return shape[size_t(i)]; });
  return ref;
}

/// The torch.Tensor class when torch is imported (it never is by this
/// module), else None.
py::object torchTensorClass() {
  py::dict modules = py::module_::import("sys").attr("modules");
  if (!modules.contains("torch"))
    return py::none();
  return py::getattr(modules["torch"], "Tensor", py::none());
}

/// A torch CPU tensor, read in place: its address, dtype and shape come
/// from the tensor itself (never from a caller's tuple).
TensorRef fromTorch(py::handle tensor, DType expected,
                    const std::string &what) {
  const std::string device = py::str(tensor.attr("device").attr("type"));
  if (device != "cpu")
    valueError(what + ": a " + device +
               " tensor; a Function runs on the CPU (CUDA tensors: "
               "indexpool.gpu.load(compile_gpu(...)))");
  const std::string layout = py::str(tensor.attr("layout"));
  if (layout != "torch.strided")
    valueError(what + ": a " + layout.substr(layout.find('.') + 1) +
               " tensor; the call reads dense (strided) tensors only (pass "
               "tensor.to_dense())");
  const std::string dtype = py::str(tensor.attr("dtype"));
  if (dtype != std::string("torch.") + elementTypeInfo(expected).torchName)
    typeError(what + ": expected a tensor of " +
              numpyFormat(expected).torchName + ", got " + dtype);
  if (!tensor.attr("is_contiguous")().cast<bool>())
    valueError(what + ": the tensor is not contiguous (the call reads it in "
                      "place; pass tensor.contiguous())");
  py::tuple shape = py::tuple(tensor.attr("shape"));
  TensorRef ref;
  ref.data = reinterpret_cast<void *>(
      tensor.attr("data_ptr")().cast<uintptr_t>());
  ref.dtype = expected;
  setShape(ref, int64_t(shape.size()), what,
           [&](int64_t i) { return shape[size_t(i)].cast<int64_t>(); });
  return ref;
}

// The DLPack ABI (dlpack.h, v0.8): what a "dltensor" capsule points to.
struct DLDevice {
  int32_t deviceType;
  int32_t deviceId;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byteOffset;
};
struct DLManagedTensor {
  DLTensor tensor;
  void *managerContext;
  void (*deleter)(DLManagedTensor *);
};
enum : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4 };
constexpr int32_t kDLCPU = 1;

bool dlpackMatches(DLDataType type, DType expected) {
  const ElementTypeInfo &info = elementTypeInfo(expected);
  if (type.lanes != 1 || !info.allows(ElementUse::Tensor) ||
      type.bits != info.bits)
    return false;
  // torch.bfloat16 says bfloat; NumPy's storage of bf16 says uint16.
  return type.code == info.dlpackCode ||
         (expected == DType::BF16 && type.code == kDLBfloat);
}

TensorRef fromDLPack(py::capsule capsule, DType expected,
                     const std::string &what, BorrowedTensors &borrowed) {
  if (std::strcmp(capsule.name(), "dltensor") != 0)
    valueError(what + ": the DLPack capsule was already consumed");
  auto *managed = capsule.get_pointer<DLManagedTensor>();
  // Consumed: the capsule's destructor must no longer free it; we do, after
  // the call.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  borrowed.add(managed);
  const DLTensor &tensor = managed->tensor;
  if (tensor.device.deviceType != kDLCPU)
    valueError(what + ": the tensor is not in host memory (DLPack device " +
               std::to_string(tensor.device.deviceType) +
               "); only CPU functions can be called from Python yet");
  if (!dlpackMatches(tensor.dtype, expected))
    typeError(what + ": expected " + dtypeName(expected) +
              " elements, got DLPack type code " +
              std::to_string(tensor.dtype.code) + " with " +
              std::to_string(tensor.dtype.bits) + " bits");
  // An empty tensor is contiguous whatever its strides (torch gives a
  // 0 x D tensor strides that no element uses).
  bool empty = false;
  for (int32_t i = 0; i < tensor.ndim; ++i)
    empty = empty || tensor.shape[i] == 0;
  if (tensor.strides && !empty) {
    int64_t expectedStride = 1;
    for (int32_t i = tensor.ndim - 1; i >= 0; --i) {
      if (tensor.shape[i] != 1 && tensor.strides[i] != expectedStride)
        valueError(what + ": the tensor is not contiguous (the call reads "
                          "it in place)");
      expectedStride *= tensor.shape[i];
    }
  }
  TensorRef ref;
  ref.data = static_cast<char *>(tensor.data) + tensor.byteOffset;
  ref.dtype = expected;
  setShape(ref, tensor.ndim, what, [&](int64_t i) { return tensor.shape[i]; });
  return ref;
}

} // namespace

BorrowedTensors::~BorrowedTensors() {
  for (void *tensor : tensors) {
    auto *managed = static_cast<DLManagedTensor *>(tensor);
    if (managed->deleter)
      managed->deleter(managed);
  }
}

py::dtype numpyDType(DType dtype) {
  const ElementTypeInfo &info = elementTypeInfo(dtype);
  return py::dtype(info.allows(ElementUse::Tensor) ? info.numpyName
                                                   : "float32");
}

TensorRef toTensorRef(py::handle object, DType expected, bool writable,
                      const std::string &what, BorrowedTensors &borrowed) {
  if (py::isinstance<py::array>(object))
    return fromNumpy(py::reinterpret_borrow<py::array>(object), expected,
                     writable, what);
  if (py::object torchTensor = torchTensorClass();
      !torchTensor.is_none() && py::isinstance(object, torchTensor))
    return fromTorch(object, expected, what);
  if (py::isinstance<py::capsule>(object))
    return fromDLPack(py::reinterpret_borrow<py::capsule>(object), expected,
                      what, borrowed);
  if (py::hasattr(object, "__dlpack__"))
    return fromDLPack(object.attr("__dlpack__")(), expected, what, borrowed);
  typeError(what +
            ": expected a NumPy array, a torch tensor or a DLPack "
            "tensor, got " +
            py::str(py::type::of(object)).cast<std::string>());
}

void toTensorRefs(py::sequence objects, const std::vector<TensorType> &types,
                  const std::string &function, const char *kind, bool writable,
                  BorrowedTensors &borrowed, std::vector<TensorRef> &refs,
                  Memory memory) {
  size_t count = objects.size();
  if (count != types.size()) {
    std::string expected;
    for (const TensorType &type : types)
      expected += (expected.empty() ? "" : ", ") + typeText(type);
    typeError("@" + function + " takes " + std::to_string(types.size()) + " " +
              kind + "s (" + expected + "), got " + std::to_string(count));
  }
  refs.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const TensorType &type = types[i];
    // The message text is only built when something is wrong.
    try {
      refs[i] = memory == Memory::Device
                    ? fromDeviceTuple(objects[i], type.dtype, "")
                    : toTensorRef(objects[i], type.dtype, writable, "",
                                  borrowed);
    } catch (py::builtin_exception &error) {
      std::string what = std::string(kind) + " #" + std::to_string(i) +
                         " of @" + function + " (" + typeText(type) + ")";
      std::string message = what + error.what();
      if (dynamic_cast<py::type_error *>(&error))
        throw py::type_error(message);
      throw py::value_error(message);
    }
  }
}

py::array copyToNumpy(const TensorRef &ref) {
  std::vector<py::ssize_t> shape(ref.shape, ref.shape + ref.rank);
  py::array array(numpyDType(ref.dtype), shape);
  size_t bytes = static_cast<size_t>(array.nbytes());
  if (bytes)
    std::memcpy(array.mutable_data(), ref.data, bytes);
  return array;
}

} // namespace indexpool::python
