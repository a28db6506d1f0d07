//===- PagedBuffers.h - the paged ops' buffers in bufferization -*- C++ -*-===//
//
// The paged ops update their pages (and append_paged its tails) in
// destination-passing style: one-shot bufferization lowers them
// (IndexPoolToLoops/BufferizePaged.cpp) on the buffers it chose, so that
// the pages are written in place whenever nothing reads the old ones after
// the op. The loops of the CPU or, for an op --indexpool-to-gpu-kernels
// marked with its chip, the GPU kernels: both take the buffers through this
// interface. Shared by IndexPoolToLoops and IndexPoolToGPU.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_COMMON_PAGEDBUFFERS_H
#define INDEXPOOL_LIB_CONVERSION_COMMON_PAGEDBUFFERS_H

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::indexpool::loops {

/// The buffers of one paged op as its bufferization gives them.
class PagedBuffers {
public:
  virtual ~PagedBuffers() = default;
  /// The buffer of operand `tensor` (null for an absent operand), read only,
  /// with the identity layout.
  virtual Value in(Value tensor) = 0;
  /// The buffer of `result`: the buffer of the operand it updates (the
  /// pages, a tail), holding that operand's values, written in place.
  virtual Value inPlace(Value result) = 0;
  /// A fresh buffer for `result`; `sizes` gives every dimension (only the
  /// dynamic ones are used).
  virtual Value out(Value result, ArrayRef<Value> sizes) = 0;
};

/// On a paged op whose GPU kernels --indexpool-to-gpu-kernels chose: the
/// chip (its launch configuration is the op's #indexpool.launch, else
/// kPagedThreadsAttrName threads per block).
inline constexpr llvm::StringLiteral kPagedChipAttrName = "indexpool.gpu_chip";
inline constexpr llvm::StringLiteral kPagedThreadsAttrName =
    "indexpool.gpu_threads_per_block";

/// Emits the GPU kernels of a marked paged op on its buffers. Set by the
/// GPU kernels' library when --indexpool-to-gpu-kernels runs (this layer
/// does not depend on it); null until then.
using PagedKernelEmitter = void (*)(Operation *op, ImplicitLocOpBuilder &b,
                                    PagedBuffers &buffers);
void setPagedKernelEmitter(PagedKernelEmitter emitter);
PagedKernelEmitter getPagedKernelEmitter();

} // namespace mlir::indexpool::loops

#endif // INDEXPOOL_LIB_CONVERSION_COMMON_PAGEDBUFFERS_H
