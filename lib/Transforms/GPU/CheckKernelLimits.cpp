//===- CheckKernelLimits.cpp - kernels within a chip's per-block limits ---===//
//
// A kernel that needs more threads per block or more static shared memory
// than its chip has compiles, and then fails at launch with a bare CUDA
// error code. This pass refuses it when it is compiled: the kernel, the
// chip, what it needs and the limit, from the chip table.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"
#include "indexpool/Target/Chips.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLCHECKKERNELLIMITS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;
namespace target = ::indexpool::target;

/// The bytes of a shared buffer of `type` (placed at a 16-byte boundary, as
/// --indexpool-align-shared-buffers does), or nullopt for a size beyond
/// int64_t or a dynamic shape.
static std::optional<int64_t> sharedBytes(MemRefType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  int64_t bits = type.getElementTypeBitWidth();
  std::optional<int64_t> n = type.getNumElements();
  std::optional<int64_t> product = llvm::checkedMul(*n, bits);
  if (!product)
    return std::nullopt;
  return llvm::alignTo(llvm::divideCeil(*product, 8), 16);
}

static bool isWorkgroup(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

namespace {
struct CheckKernelLimits
    : mlir::indexpool::impl::IndexPoolCheckKernelLimitsBase<CheckKernelLimits> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    const target::ChipInfo *info = target::findChip(chip, error);
    if (!info) {
      getOperation().emitError(error);
      return signalPassFailure();
    }
    bool ok = true;
    getOperation().walk([&](gpu::GPUFuncOp kernel) {
      if (kernel.isKernel() && failed(check(kernel, *info)))
        ok = false;
    });
    if (!ok)
      signalPassFailure();
  }

  LogicalResult check(gpu::GPUFuncOp kernel, const target::ChipInfo &info) {
    auto refuse = [&](StringRef what, int64_t need, int64_t limit) {
      return kernel.emitError()
             << "kernel '" << kernel.getName() << "' needs " << need << " "
             << what << " on " << info.name << ", beyond its limit of " << limit
             << ": a launch would fail on the device";
    };
    if (std::optional<ArrayRef<int32_t>> block = kernel.getKnownBlockSize()) {
      int64_t threads = 1;
      for (int32_t size : *block)
        threads *= size; // each at most 1024 (checkLaunchLimits)
      if (threads > info.maxThreadsPerBlock)
        return refuse("threads per block", threads, info.maxThreadsPerBlock);
    }
    int64_t bytes = 0;
    auto add = [&](MemRefType type) -> LogicalResult {
      std::optional<int64_t> size = sharedBytes(type);
      std::optional<int64_t> sum =
          size ? llvm::checkedAdd(bytes, *size) : std::nullopt;
      if (!sum)
        return kernel.emitError() << "kernel '" << kernel.getName()
                                  << "' has a shared buffer of type " << type
                                  << " whose size is not a static int64_t";
      bytes = *sum;
      return success();
    };
    for (BlockArgument buffer : kernel.getWorkgroupAttributions())
      if (failed(add(cast<MemRefType>(buffer.getType()))))
        return failure();
    // Workgroup globals the kernel reads through memref.get_global.
    SymbolTableCollection symbols;
    DenseSet<Operation *> seen;
    WalkResult walk = kernel.walk([&](memref::GetGlobalOp use) {
      auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
          use, use.getNameAttr());
      if (!global || !isWorkgroup(global.getType()) ||
          !seen.insert(global).second)
        return WalkResult::advance();
      return failed(add(global.getType())) ? WalkResult::interrupt()
                                           : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (bytes > target::kMaxStaticSharedBytes)
      return refuse("bytes of static shared memory per block", bytes,
                    target::kMaxStaticSharedBytes);
    return success();
  }
};
} // namespace
