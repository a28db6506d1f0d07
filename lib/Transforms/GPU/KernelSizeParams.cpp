//===- KernelSizeParams.cpp - dynamic buffers as pointer + sizes ----------===//
//
// One compiled kernel serves every size only if its sizes are parameters:
// a buffer of dynamic shape crosses into a gpu.launch as a static 1-element
// view (a bare pointer after outlining) and its dynamic sizes (index
// values), and the kernel rebuilds the full view from them.
//
//===----------------------------------------------------------------------===//

#include "KernelSizeParams.h"

#include "indexpool/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLKERNELSIZEPARAMS
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;

/// The host values a buffer of dynamic size crosses into kernels as: its
/// 1-element view and its dynamic sizes, made once per buffer right after
/// it is defined (so that every launch shares them: one kernel parameter
/// per distinct size).
struct PassedBuffer {
  Value pointer;
  SmallVector<Value> dynamicSizes;
};

static PassedBuffer passOnHost(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Location loc = buffer.getLoc();
  OpBuilder host(buffer.getContext());
  if (Operation *def = buffer.getDefiningOp())
    host.setInsertionPointAfter(def);
  else
    host.setInsertionPointToStart(cast<BlockArgument>(buffer).getOwner());
  PassedBuffer passed;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      // Folded: the size an allocation was made with, not a new query.
      passed.dynamicSizes.push_back(
          host.createOrFold<memref::DimOp>(loc, buffer, d));
  auto pointerType = MemRefType::get({1}, type.getElementType(),
                                     MemRefLayoutAttrInterface(),
                                     type.getMemorySpace());
  passed.pointer = memref::ReinterpretCastOp::create(
      host, loc, pointerType, buffer, /*offset=*/0, /*sizes=*/{1},
      /*strides=*/{1});
  return passed;
}

/// `buffer` as the launch body sees it: the full view, rebuilt at the start
/// of the body from what crosses.
static Value viewInKernel(gpu::LaunchOp launch, Value buffer,
                          const PassedBuffer &passed) {
  auto type = cast<MemRefType>(buffer.getType());
  Location loc = buffer.getLoc();
  Value pointer = passed.pointer;
  auto nextDynamic = passed.dynamicSizes.begin();

  // In the kernel: every size (static or a parameter) and the row-major
  // strides, static where the sizes after them are.
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(type.isDynamicDim(d)
                        ? OpFoldResult(*nextDynamic++)
                        : OpFoldResult(body.getIndexAttr(type.getDimSize(d))));
  // Row-major: the stride of a dimension is the product of the sizes after
  // it, folded where they are static.
  auto asValue = [&](OpFoldResult r) -> Value {
    if (auto v = dyn_cast<Value>(r))
      return v;
    return arith::ConstantIndexOp::create(body, loc, *getConstantIntValue(r));
  };
  SmallVector<OpFoldResult> strides(type.getRank(), body.getIndexAttr(1));
  for (int64_t d = type.getRank() - 1; d > 0; --d) {
    std::optional<int64_t> stride = getConstantIntValue(strides[d]);
    std::optional<int64_t> size = getConstantIntValue(sizes[d]);
    if (stride && size)
      strides[d - 1] = body.getIndexAttr(*stride * *size);
    else if (stride == 1)
      strides[d - 1] = sizes[d];
    else
      strides[d - 1] =
          arith::MulIOp::create(body, loc, asValue(strides[d]),
                                asValue(sizes[d]))
              .getResult();
  }
  return memref::ReinterpretCastOp::create(body, loc, type, pointer,
                                           body.getIndexAttr(0), sizes,
                                           strides);
}

LogicalResult mlir::indexpool::passBuffersBySizes(
    ArrayRef<gpu::LaunchOp> launches) {
  DenseMap<Value, PassedBuffer> passed;
  for (gpu::LaunchOp launch : launches) {
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(launch.getBody(), captured);
    for (Value buffer : captured) {
      auto type = dyn_cast<MemRefType>(buffer.getType());
      if (!type || type.hasStaticShape())
        continue;
      if (!type.getLayout().isIdentity())
        return launch.emitError()
               << "a GPU kernel takes buffers of dynamic size that are "
                  "row-major and contiguous, got "
               << type;
      auto [it, fresh] = passed.try_emplace(buffer);
      if (fresh)
        it->second = passOnHost(buffer);
      Value view = viewInKernel(launch, buffer, it->second);
      replaceAllUsesInRegionWith(buffer, view, launch.getBody());
    }
  }
  return success();
}

namespace {
struct IndexPoolKernelSizeParams
    : mlir::indexpool::impl::IndexPoolKernelSizeParamsBase<
          IndexPoolKernelSizeParams> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    if (failed(mlir::indexpool::passBuffersBySizes(launches)))
      signalPassFailure();
  }
};
} // namespace
