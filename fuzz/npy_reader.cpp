//===- npy_reader.cpp - fuzz the .npy reader ------------------------------===//
//
// Input: the bytes of a .npy file. readNpy must either fail with one line
// that names the file or return an array whose bytes match its shape and
// dtype; such an array must survive writeNpy + readNpy unchanged and convert
// to every element type of its kind (float or integer) or fail cleanly.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "indexpool/Runtime/Npy.h"

#include <string>

using namespace indexpool;
using indexpool::fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz::MemFile input("npy-input");
  static fuzz::MemFile output("npy-output");
  input.write(data, size);

  runtime::NpyArray array;
  std::string error;
  if (!runtime::readNpy(input.path, array, error)) {
    if (error.empty() || error.find('\n') != std::string::npos ||
        error.find(input.path) == std::string::npos)
      finding("readNpy failed without one line naming the file: '" + error +
              "'");
    return 0;
  }
  int64_t itemSize = runtime::npyItemSize(array.dtype);
  if (itemSize == 0)
    finding("readNpy accepted dtype '" + array.dtype + "'");
  int64_t elements = ref::numElements(array.shape);
  if (elements < 0 ||
      uint64_t(elements) * uint64_t(itemSize) != uint64_t(array.bytes.size()))
    finding("readNpy returned " + std::to_string(array.bytes.size()) +
            " bytes for shape " + ref::shapeString(array.shape) + " of " +
            array.dtype);

  // What was read is written back unchanged.
  if (!runtime::writeNpy(output.path, array, error))
    finding("writeNpy rejected what readNpy returned: " + error);
  runtime::NpyArray again;
  if (!runtime::readNpy(output.path, again, error))
    finding("readNpy rejected what writeNpy wrote: " + error);
  if (again.dtype != array.dtype || again.shape != array.shape ||
      again.bytes != array.bytes)
    finding("writeNpy + readNpy changed the array");

  // Conversions, on arrays small enough to stay fast.
  if (elements > (1 << 16))
    return 0;
  for (ref::ElementType type :
       {ref::ElementType::F32, ref::ElementType::F16, ref::ElementType::BF16,
        ref::ElementType::F8E4M3FN, ref::ElementType::I8,
        ref::ElementType::I32, ref::ElementType::I64}) {
    ref::HostTensor tensor;
    if (!runtime::npyToHostTensor(array, type, tensor, error)) {
      if (error.empty() || error.find('\n') != std::string::npos)
        finding("npyToHostTensor failed without one line");
      continue;
    }
    if (tensor.shape != array.shape || int64_t(tensor.data.size()) != elements)
      finding("npyToHostTensor changed the shape");
    // Every value is one the type holds: converting the result back to an
    // array and to the same type again changes nothing.
    ref::HostTensor back;
    if (!runtime::npyToHostTensor(runtime::hostTensorToNpy(tensor), type, back,
                                  error))
      finding("npyToHostTensor rejected hostTensorToNpy's array: " + error);
    for (size_t i = 0; i < tensor.data.size(); ++i)
      if (!(back.data[i] == tensor.data[i]) &&
          !(back.data[i] != back.data[i] && tensor.data[i] != tensor.data[i]))
        finding("element " + std::to_string(i) + " changed in a round trip");
  }
  return 0;
}
