//===- GPUKernels.h - the fused GPU kernels on buffers ----------*- C++ -*-===//
//
// One function per kernel. Each checks first whether it covers the shapes
// (`can...`), so that the pattern can leave other ops to the row loops.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_GPUKERNELS_H
#define INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_GPUKERNELS_H

#include "KernelBuilder.h"

#include "Common/Kernels.h"
#include "Common/PagedLayout.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <functional>
#include <optional>

namespace mlir::indexpool::gpukernels {

/// Buffers and properties of indexpool.compress.
struct CompressBuffers {
  loops::PoolBuffers pool;      // keys, scores, bias, weights, P, temperature
  Value codes, scales;          // results
  bool rotate, pow2Scale;
  double minAbsmax;
};

/// Whether the warp-row kernels (compress, pool, hadamard, quantize) cover
/// rows of this [N, D] buffer: a static D whose 16-byte chunks (or D
/// itself, when smaller) are a power of two or a multiple of 32, or that
/// `launch`'s vector_bytes and elements_per_thread lay out (WarpRows.h).
bool canRowKernel(MemRefType rows, const KernelLaunch &launch);

/// compress as ONE kernel. `hardwareFp8`: cvt.rn.satfinite.e4m3x2.f32
/// (sm_89 and newer).
void emitCompressKernel(ImplicitLocOpBuilder &b, const CompressBuffers &c,
                        const KernelLaunch &launch, bool hardwareFp8);
/// pool: pooled [G, D] and the weights of `p`.
void emitPoolKernel(ImplicitLocOpBuilder &b, const loops::PoolBuffers &p,
                    Value pooled, const KernelLaunch &launch);
/// hadamard of the rows of a 2-d `input` into `output`.
void emitHadamardKernel(ImplicitLocOpBuilder &b, Value input, Value output,
                        const KernelLaunch &launch);
/// quantize of the rows of a 2-d `input`.
void emitQuantizeKernel(ImplicitLocOpBuilder &b, Value input, Value codes,
                        Value scales, bool pow2Scale, double minAbsmax,
                        const KernelLaunch &launch, bool hardwareFp8);

/// Whether the score kernel covers this query: static H and D, the query
/// (as f32) and weights of one row in 48 KiB of shared memory, and key rows
/// of whole 16-byte chunks.
bool canScore(MemRefType query, MemRefType keys);
/// Tiles of items_per_block key rows (default: one per thread) per query
/// row; grid-stride by default, with one block per SM (registers).
void emitScoreKernel(ImplicitLocOpBuilder &b, Value query, Value weights,
                     Value keys, Value scales, Value logits,
                     const KernelLaunch &launch);

/// The chip facts the tensor-core score depends on.
struct MmaChip {
  int computeCapability = 80;
  /// cvt.rn.f16x2.e4m3x2 (8.9 and newer): FP8 keys decoded by the hardware.
  bool hardwareFp8 = false;
  /// wgmma (sm_90a, the one chip that has it).
  bool warpgroupMma = false;

  /// Whether the chip's MMAs take e4m3 operands natively: mma.sync on 8.9
  /// and from 10.0, wgmma on sm_90a. On 9.0 ptxas expands an e4m3
  /// mma.sync into conversions and f16 HMMAs (532 instructions per 16 keys
  /// where bf16 takes 424, docs/performance.md); before 8.9 there is none.
  bool nativeFp8Mma() const {
    return computeCapability == 89 || computeCapability >= 100 || warpgroupMma;
  }
};

/// Whether an FP8 e4m3 query against keys of `keyElement` is scored by the
/// e4m3 MMA as it is (FP8 keys on a chip with native e4m3 MMAs; on sm_90a
/// where the wgmma kernel covers the query). Otherwise
/// the tensor-core score decodes the query to bf16 once (exact: every e4m3
/// value is a bf16 value), in a kernel of its own, and takes the bf16 MMA.
bool scoresFp8QueryAsIs(MemRefType query, Type keyElement,
                        const MmaChip &chip);

/// Whether the tensor-core score kernel covers these buffers: a chip of
/// compute capability 8.0 or newer (mma.sync m16n8k16 on bf16), a bf16
/// query, or an FP8 e4m3 one decoded to bf16 (scoresFp8QueryAsIs), with
/// static H (a multiple of 16 up to 128) and D (a multiple of 16 up to
/// 128: one key tile's fragments in 32 registers), FP8 e4m3 or bf16 keys
/// of D channels; or an FP8 query scored as it is (D a multiple of 32 up
/// to 256) with FP8 keys.
bool canScoreMma(MemRefType query, MemRefType keys, const MmaChip &chip);
/// A key row of the tensor-core score: its elements are
/// memref[lead..., offset + channel] (`MmaKeys::codeType` values, or their
/// bytes in an i8 memref), with its f32 scale (null: none); `present` (i1,
/// null: always) says whether there is a row: where it is false the logit
/// is NaN and the row is not read.
struct MmaKeyRow {
  Value memref;
  SmallVector<Value> lead;
  Value offset;
  Value scale;
  Value present;
};
/// Where the tensor-core score's key rows are: `count` of them, the first
/// `rowLength(m)` (null: all) scored for query row m (only with
/// `perQuery`), row n of query row m through `row` (n < count).
/// `perQuery`: the rows depend on the query row (pages of its sequence,
/// its candidates): one query row per block. Every row starts at a multiple
/// of `alignBytes` (a power of two up to 16) from a 16-byte aligned base.
struct MmaKeys {
  Type codeType;
  int64_t alignBytes = 1;
  bool perQuery = false;
  std::function<Value(loops::Emitter &)> count;
  std::function<Value(loops::Emitter &, Value m)> rowLength;
  std::function<MmaKeyRow(loops::Emitter &, Value m, Value n)> row;
};
/// The tensor-core score over `keys` (canScoreMma must cover the query and
/// rows of keys.codeType): logits[m, n] for the rows it scores.
/// `warpgroupMma` (sm_90a): the wgmma kernel where canScoreWgmma holds.
void emitMmaScoreKernel(ImplicitLocOpBuilder &b, Value query, Value weights,
                        Value logits, const MmaKeys &keys,
                        const KernelLaunch &launch, const MmaChip &chip);
/// Whether the wgmma score covers this query (canScoreMma holding): one
/// warpgroup's 64 key rows and the query row's H x D in 48 KiB of shared
/// memory (bf16, or e4m3 for an FP8 query); within canScoreMma's bounds
/// it always does.
bool canScoreWgmma(MemRefType query);
/// The tensor-core score on sm_90a (WgmmaScoreKernel.cpp): wgmma.mma_async
/// on tiles of 64 key rows x H heads in shared memory; logits bit for bit
/// those of any other launch of it.
void emitWgmmaScoreKernel(ImplicitLocOpBuilder &b, Value query,
                          Value weights, Value logits, const MmaKeys &keys,
                          const KernelLaunch &launch, bool hardwareFp8);
/// refine's gather-score on the tensor cores: the MMA score kernel over the
/// key rows refine's candidates name (NaN for padding, not read), so each
/// logit is the tensor-core score's bit for bit.
void emitMmaRefineScoreKernel(ImplicitLocOpBuilder &b, Value query,
                              Value weights, Value candidates, Value keys,
                              Value scales, Value logits,
                              const KernelLaunch &launch,
                              const MmaChip &chip);
/// score on the tensor cores (MmaScoreKernel.cpp): per warp up to 4 tiles
/// of 16 key rows, their fragments loaded once for every query row;
/// grid-stride over the key rows, one wave. FP8 keys are decoded by
/// cvt.rn.f16x2.e4m3x2 with `hardwareFp8` (sm_89+), else in software.
/// Its logits differ from the CUDA-core kernel's in the last bits.
void emitMmaScoreKernel(ImplicitLocOpBuilder &b, Value query, Value weights,
                        Value keys, Value scales, Value logits,
                        const KernelLaunch &launch, const MmaChip &chip);

/// Key row n of query row m as the score kernel reads it: its f32 scale
/// (null: none) and its E channels from d0 as an f32 vector; `present`
/// (i1, null: always) says whether there is a row at all: where it is
/// false the logit is NaN and `load` is not called.
struct KeyRow {
  Value scale;
  std::function<Value(Value d0)> load;
  Value present;
};
/// Where the score kernel's key rows are: `count` of them (emitted in the
/// kernel and for its grid from buffer sizes), the first `rowLength(m)`
/// (null: all) scored for query row m, each read through `row`; keys of
/// `elementBytes` bytes each.
struct ScoreKeys {
  int64_t elementBytes = 1;
  std::function<Value(loops::Emitter &)> count;
  std::function<Value(loops::Emitter &, Value m)> rowLength;
  std::function<KeyRow(loops::Emitter &, Value m, Value n)> row;
};
/// The score kernel over the key rows of `keys`: logits[m, n] for the rows
/// it scores (the others are not written); `query` [M, H, D] as canScore
/// takes it.
void emitScoreKernel(ImplicitLocOpBuilder &b, Value query, Value weights,
                     Value logits, const ScoreKeys &keys,
                     const KernelLaunch &launch);

/// refine's gather-score: logits[m, c] of key row candidates[m, c] ([M, C]
/// i32) for every candidate, NaN for those outside [0, T) (not read); the
/// score kernel, so each logit is score's. canScore must cover query and
/// keys.
void emitRefineScoreKernel(ImplicitLocOpBuilder &b, Value query, Value weights,
                           Value candidates, Value keys, Value scales,
                           Value logits, const KernelLaunch &launch);

/// Bins of the topk kernels' per-row prefix histogram (the top 12 bits of
/// the order-preserving value bits).
constexpr int64_t kTopKPrefixBins = 4096;
/// The bytes of the topk kernels' temporaries for [M, N] logits and k
/// (histograms and counters, candidate columns, and the winners' keys when
/// k > 2048), or nullopt when that overflows int64_t.
std::optional<int64_t> topKTemporaryBytes(int64_t m, int64_t n, int64_t k);

/// topk of every row (any N, any k); `valid` may be null. Four launches
/// (TopKKernel.cpp): a prefix histogram per row built by segments of the
/// row (a wave of blocks at M = 1; segments of at least threads_per_block x
/// elements_per_thread columns), the columns at or above the k-th largest
/// value's bin gathered, and the exact radix select over those in one
/// block per row (tiles of items_per_block rows, default 1; tiled by
/// default).
void emitTopKKernel(ImplicitLocOpBuilder &b, Value logits, Value valid,
                    Value values, Value indices, const KernelLaunch &launch);
/// The launch of a topk that is part of another op's kernels (select_paged,
/// refine): `launch` without its elements_per_thread, which is the score
/// kernel's (the topk kernels then take one column per thread).
KernelLaunch partTopKLaunch(const KernelLaunch &launch);

/// tokens [M, k*P] of indexpool.expand: tiles of items_per_block query
/// rows (default: the rows of one block of threads); tiled by default.
void emitExpandKernel(ImplicitLocOpBuilder &b, Value indices, Value tokens,
                      int64_t poolSize, const KernelLaunch &launch);

/// tokens [M, k] of indexpool.refine from the topk indices [M, k]: the
/// CPU's emitTakeEntry per entry; tiles of items_per_block query rows as
/// the expand kernel's; tiled by default.
void emitTakeKernel(ImplicitLocOpBuilder &b, Value candidates, Value keys,
                    Value indices, Value tokens, const KernelLaunch &launch);

/// Copies `from` into `to` (same shape, row-major and contiguous), one
/// thread per element.
void emitCopyKernel(ImplicitLocOpBuilder &b, Value from, Value to,
                    const KernelLaunch &launch);

/// Buffers and properties of indexpool.compress_paged: `pages` is the
/// result, `pagesIn` with the groups written (the same buffer when written
/// in place, else copied first).
struct PagedCompressBuffers {
  loops::PoolBuffers pool; // keys, scores, bias, P, temperature (no weights)
  Value pagesIn, slots, pages;
  loops::PageEntries layout;
  bool rotate, pow2Scale;
  double minAbsmax;
};
/// compress_paged (a copy of the pages first unless written in place): the
/// compress warp-row kernel storing group g at slots[g] (skipped for slots
/// outside the pages). canRowKernel must cover the keys.
void emitCompressPagedKernels(ImplicitLocOpBuilder &b,
                              const PagedCompressBuffers &c,
                              const KernelLaunch &launch, bool hardwareFp8);

/// Buffers and properties of indexpool.select_paged.
struct PagedSelectBuffers {
  Value query, weights, pages, table, lengths; // [B, S, ...] as the op has
  Value tokens;                                // result [B, S, k*P + P - 1]
  int64_t k, poolSize;
  loops::PageEntries layout;
  /// Score on the tensor cores (canSelectPagedMma holds) of `chip`.
  bool tensorCores = false;
  MmaChip chip;
};
/// Whether the tensor-core score covers this [B, S, H, D] query against
/// pages of `codeType` codes on `chip`.
bool canSelectPagedMma(MemRefType query, Type codeType, const MmaChip &chip);
/// Whether the score kernel covers this [B, S, H, D] query (canScore with
/// i8 code rows of D).
bool canSelectPaged(MemRefType query);
/// select_paged: per-row entry counts and tail tokens, the score kernel
/// through the block table, topk, expand.
void emitSelectPagedKernels(ImplicitLocOpBuilder &b,
                            const PagedSelectBuffers &s,
                            const KernelLaunch &launch);

/// Buffers and properties of indexpool.refine_paged.
struct PagedRefineBuffers {
  Value query, weights, candidates, pages, table, lengths; // [B, S, ...]
  Value tokens;                                            // result [B, S, k]
  int64_t k;
  loops::PageEntries layout;
  /// Score on the tensor cores (canSelectPagedMma holds) of `chip`.
  bool tensorCores = false;
  MmaChip chip;
};
/// refine_paged: the score kernel over each row's candidate tokens (their
/// entries in the token tier, NaN for padding, not read), topk, and the
/// take of the kept candidates.
void emitRefinePagedKernels(ImplicitLocOpBuilder &b,
                            const PagedRefineBuffers &s,
                            const KernelLaunch &launch);

/// Buffers and properties of indexpool.append_paged; `pages`,
/// `newTailKeys` and `newTailScores` are the results.
struct PagedAppendBuffers {
  Value keys, scores, bias, tailKeys, tailScores, lengths, pagesIn, table;
  Value pages, newTailKeys, newTailScores;
  int64_t poolSize;
  double temperature;
  loops::PageEntries layout;
  bool rotate, pow2Scale;
  double minAbsmax;
};
/// append_paged (a copy of the pages first unless written in place): a
/// gather of the completed groups' tokens and of the new tails, then the
/// compress warp-row kernel storing each group at its entry. canRowKernel
/// must cover rows of the keys' D.
void emitAppendPagedKernels(ImplicitLocOpBuilder &b,
                            const PagedAppendBuffers &a,
                            const KernelLaunch &launch, bool hardwareFp8);

} // namespace mlir::indexpool::gpukernels

#endif // INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_GPUKERNELS_H
