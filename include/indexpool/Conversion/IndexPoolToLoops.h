//===- IndexPoolToLoops.h - indexpool ops -> loops on buffers ---*- C++ -*-===//
#ifndef INDEXPOOL_CONVERSION_INDEXPOOLTOLOOPS_H
#define INDEXPOOL_CONVERSION_INDEXPOOLTOLOOPS_H

#include <cstdint>

namespace indexpool::target {
struct CpuTarget;
} // namespace indexpool::target

namespace mlir {
class RewritePatternSet;

namespace indexpool {
/// Patterns that replace every dense indexpool op on tensors by scf/vector
/// loops on buffers (bufferization.to_buffer / to_tensor at the boundary);
/// the paged ops are lowered by one-shot bufferization, in place. Loops
/// over D use vectors of `vectorWidth` f32 lanes; `stackScopes` wraps each
/// row's scratch in memref.alloca_scope (needed where rows run in loops);
/// the score loops use the dot instructions of CPU target `cpu` (null:
/// f32 FMAs), its int8 dot with a quantized query where `int8Query`.
void populateIndexPoolToLoopsPatterns(
    RewritePatternSet &patterns, int64_t vectorWidth, bool stackScopes = true,
    const ::indexpool::target::CpuTarget *cpu = nullptr,
    bool int8Query = false);
} // namespace indexpool
} // namespace mlir

#endif // INDEXPOOL_CONVERSION_INDEXPOOLTOLOOPS_H
