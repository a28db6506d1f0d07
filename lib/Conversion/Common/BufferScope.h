//===- BufferScope.h - buffers around one lowered op ------------*- C++ -*-===//
//
// An op on tensors lowered to code on buffers: its operands become read-only
// buffers (`to_buffer`), its results fresh allocations handed back as
// tensors (`to_tensor restrict`), so that one-shot bufferization takes over
// the rest of the function. Shared by the loop and the GPU kernel lowerings.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_COMMON_BUFFERSCOPE_H
#define INDEXPOOL_LIB_CONVERSION_COMMON_BUFFERSCOPE_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::indexpool::loops {

/// Buffers in, buffers out, around one op.
class BufferScope {
public:
  BufferScope(ImplicitLocOpBuilder &b) : b(b) {}

  Value in(Value tensor) {
    if (!tensor)
      return {};
    auto t = cast<RankedTensorType>(tensor.getType());
    auto type = MemRefType::get(t.getShape(), t.getElementType());
    return bufferization::ToBufferOp::create(b, type, tensor,
                                             /*read_only=*/true);
  }

  /// A result buffer of type `t`; `sizes` gives every dimension (only the
  /// dynamic ones are used).
  Value out(Type t, ArrayRef<Value> sizes) {
    auto tensor = cast<RankedTensorType>(t);
    SmallVector<Value> dynamic;
    for (auto [i, size] : llvm::enumerate(sizes))
      if (tensor.isDynamicDim(i))
        dynamic.push_back(size);
    auto type = MemRefType::get(tensor.getShape(), tensor.getElementType());
    Value buffer =
        memref::AllocOp::create(b, type, dynamic, b.getI64IntegerAttr(64));
    results.push_back({buffer, tensor});
    return buffer;
  }

  /// `out` for a result that may have no use: then no buffer is allocated
  /// and null is returned (the code skips its stores), and the result is an
  /// empty tensor that nothing reads (it costs no memory and no time).
  Value outIfUsed(Value result, ArrayRef<Value> sizes) {
    if (!result.use_empty())
      return out(result.getType(), sizes);
    auto tensor = cast<RankedTensorType>(result.getType());
    SmallVector<Value> dynamic;
    for (auto [i, size] : llvm::enumerate(sizes))
      if (tensor.isDynamicDim(i))
        dynamic.push_back(size);
    results.push_back(
        {tensor::EmptyOp::create(b, tensor.getShape(),
                                 tensor.getElementType(), dynamic),
         tensor});
    return {};
  }

  /// The result tensors, in the order `out` was called.
  SmallVector<Value> finish() {
    SmallVector<Value> tensors;
    for (auto [value, type] : results)
      tensors.push_back(
          isa<RankedTensorType>(value.getType())
              ? value
              : bufferization::ToTensorOp::create(b, type, value,
                                                  b.getUnitAttr(),
                                                  b.getUnitAttr())
                    .getResult());
    return tensors;
  }

private:
  ImplicitLocOpBuilder &b;
  SmallVector<std::pair<Value, RankedTensorType>> results;
};

} // namespace mlir::indexpool::loops

#endif // INDEXPOOL_LIB_CONVERSION_COMMON_BUFFERSCOPE_H
