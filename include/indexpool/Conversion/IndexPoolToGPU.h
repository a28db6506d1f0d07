//===- IndexPoolToGPU.h - indexpool ops -> GPU kernels ----------*- C++ -*-===//
#ifndef INDEXPOOL_CONVERSION_INDEXPOOLTOGPU_H
#define INDEXPOOL_CONVERSION_INDEXPOOLTOGPU_H

#include <cstdint>

namespace indexpool::target {
struct ChipInfo;
} // namespace indexpool::target

namespace mlir {
class RewritePatternSet;

namespace indexpool {
/// Patterns that replace compress, pool, hadamard, quantize, score, topk and
/// expand on tensors by gpu.launch kernels on buffers for `chip` (its FP8
/// conversion instruction, its SM count), select being split into score ->
/// topk -> expand first. Blocks have the op's #indexpool.launch threads,
/// else `threadsPerBlock` (target::threadsPerBlockRule, checked by the
/// caller). Ops whose shapes no kernel covers are left alone. With
/// `tensorCores` (the default), the scores of score, select, refine and
/// select_paged take the mma.sync kernel where it covers the shapes.
void populateIndexPoolToGPUKernelsPatterns(
    RewritePatternSet &patterns, const ::indexpool::target::ChipInfo &chip,
    int64_t threadsPerBlock, bool tensorCores = true);
} // namespace indexpool
} // namespace mlir

#endif // INDEXPOOL_CONVERSION_INDEXPOOLTOGPU_H
