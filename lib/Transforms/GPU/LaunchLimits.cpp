//===- LaunchLimits.cpp - CUDA's grid and block limits on launches --------===//

#include "LaunchLimits.h"

#include "indexpool/Target/Chips.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using ::indexpool::target::kMaxBlockDims;
using ::indexpool::target::kMaxGridDims;

FailureOr<bool> mlir::indexpool::checkLaunchLimits(Location loc,
                                                   gpu::KernelDim3 grid,
                                                   gpu::KernelDim3 block) {
  struct Dim {
    Value size;
    const char *what;
    int64_t max;
  };
  Dim dims[] = {{grid.x, "blocks in grid dimension x", kMaxGridDims[0]},
                {grid.y, "blocks in grid dimension y", kMaxGridDims[1]},
                {grid.z, "blocks in grid dimension z", kMaxGridDims[2]},
                {block.x, "threads per block in x", kMaxBlockDims[0]},
                {block.y, "threads per block in y", kMaxBlockDims[1]},
                {block.z, "threads per block in z", kMaxBlockDims[2]}};
  bool isEmpty = false;
  for (const Dim &d : dims) {
    std::optional<int64_t> size = getConstantIntValue(d.size);
    if (!size)
      continue;
    if (*size == 0) {
      isEmpty = true;
      continue;
    }
    if (*size < 0 || *size > d.max)
      // At the op's location, without the launch printed after it.
      return emitError(loc) << "the GPU kernel of this op needs " << *size
                            << " " << d.what << ", beyond CUDA's limit of "
                            << d.max << ": split the op into smaller ones";
  }
  return isEmpty;
}
