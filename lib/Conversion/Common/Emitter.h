//===- Emitter.h - loop and vector building blocks ---------------*- C++ -*-===//
//
// What every indexpool kernel needs: loops over rows and over chunks of D
// (vector main part + masked tail), typed loads and stores that convert the
// element type to and from f32 with round-to-nearest-even, and constants.
// Shared by the CPU row loops (IndexPoolToLoops), the GPU kernels and the GPU
// emulator (IndexPoolToGPU), so that every device computes the same way.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_COMMON_EMITTER_H
#define INDEXPOOL_LIB_CONVERSION_COMMON_EMITTER_H

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

namespace indexpool::target {
struct CpuTarget;
} // namespace indexpool::target

namespace mlir::indexpool::loops {

/// On a row scf.parallel, from its op's launch configuration (read by
/// --indexpool-tile-rows): the threads per block, the rows of a block's tile
/// and, for a grid-stride grid, the blocks of one wave.
constexpr llvm::StringLiteral kThreadsAttrName = "indexpool.threads_per_block";
constexpr llvm::StringLiteral kItemsAttrName = "indexpool.items_per_block";
constexpr llvm::StringLiteral kBlocksPerSMAttrName = "indexpool.blocks_per_sm";

/// A chunk of one row: `vl` lanes starting at `offset`; `mask` is null for a
/// full chunk and an i1 vector for the tail of a row whose length is not a
/// multiple of `vl`.
struct Chunk {
  Value offset;
  Value mask;
};

class Emitter {
public:
  Emitter(ImplicitLocOpBuilder &b, int64_t vectorWidth, bool stackScopes)
      : b(b), vl(vectorWidth), scopes(stackScopes) {}

  /// Threads per block that the op's #indexpool.launch asks for: recorded on
  /// every row loop (kThreadsAttrName) for the GPU lowering to tile by, at
  /// most kMaxRowThreads.
  void setThreadsPerBlock(int64_t threads) {
    threadsPerBlock = std::min(threads, kMaxRowThreads);
  }
  /// The rows of a block's tile (kItemsAttrName) and, when set, the blocks
  /// of a grid-stride wave per SM (kBlocksPerSMAttrName; the device's SM
  /// count is known at run time), recorded on every row loop.
  void setTile(int64_t items, std::optional<int64_t> blocksPerSM) {
    itemsPerBlock = items;
    gridStrideBlocksPerSM = blocksPerSM;
  }
  /// A row kernel keeps a whole row's state per thread (up to ~170
  /// registers as ptxas reports them); ptxas caps registers at 65536 / block
  /// size (.maxntid), so larger blocks would spill.
  static constexpr int64_t kMaxRowThreads = 256;

  /// The CPU target the loops are for (Target/CpuTargets.h; null: none in
  /// particular, as on the GPU): its dot instructions score (ScoreRows.h).
  void setCpuTarget(const ::indexpool::target::CpuTarget *row) { cpu = row; }
  const ::indexpool::target::CpuTarget *cpuTarget() const { return cpu; }
  /// Whether i8 / i4 keys may be scored with the CPU target's int8 dot, the
  /// query quantized per head (ScoreRows.h; approximate, so opt-in).
  void setInt8Query(bool on) { int8QueryDot = on; }
  bool int8Query() const { return int8QueryDot; }

  ImplicitLocOpBuilder &builder() { return b; }
  int64_t width() const { return vl; }
  VectorType vecType(Type element) const;
  VectorType f32Vec() const;

  // Constants.
  Value index(int64_t v);
  Value i32(int32_t v);
  Value f32(double v);
  /// `v` broadcast to a vector of `vl` lanes.
  Value splat(Value v);
  Value f32Splat(double v) { return splat(f32(v)); }

  // Index arithmetic.
  Value add(Value a, Value c);
  Value mul(Value a, Value c);
  Value dim(Value memref, int64_t d);

  // Loops. Bodies run with the builder inside the loop.
  using LoopBody =
      function_ref<SmallVector<Value>(Value iv, ValueRange iterArgs)>;
  SmallVector<Value> forLoop(Value lb, Value ub, Value step, ValueRange inits,
                             LoopBody body);
  void forLoop(Value lb, Value ub, function_ref<void(Value iv)> body);
  /// for (iv = lb; iv < ub; iv += step) body(iv).
  void forLoop(Value lb, Value ub, Value step,
               function_ref<void(Value iv)> body);
  /// Rows [0, n) distributed across threads (scf.parallel).
  void parallelFor(Value n, function_ref<void(Value iv)> body);
  /// A stack scope, so that per-row scratch allocas are freed every row
  /// (inline when the emitter was built without stack scopes).
  void stackScope(function_ref<void()> body);
  /// `then` when `cond`, else pass `elseValues` through.
  SmallVector<Value> ifThen(Value cond, ValueRange elseValues,
                            function_ref<SmallVector<Value>()> then);
  /// `then` when `cond` (no else branch).
  void ifThen(Value cond, function_ref<void()> then);

  /// Visits [0, n) in chunks of `vl`: the main loop with full vectors, then
  /// one masked tail chunk if n is not a multiple of vl. `inits` are carried
  /// through both as loop-carried values.
  using ChunkBody =
      function_ref<SmallVector<Value>(Chunk chunk, ValueRange iterArgs)>;
  SmallVector<Value> chunks(Value n, ValueRange inits, ChunkBody body);
  void chunks(Value n, function_ref<void(Chunk chunk)> body);

  // Typed vector memory access: any element type of the dialect <-> f32.
  /// Loads `vl` elements at `indices` (last index = chunk offset) as f32;
  /// masked-off lanes read `padding`.
  Value loadF32(Value memref, ValueRange indices, Value mask,
                double padding = 0.0);
  /// Rounds `v` (f32 lanes) to the memref's element type and stores it.
  void storeF32(Value v, Value memref, ValueRange indices, Value mask);
  /// Scalar versions.
  Value loadScalarF32(Value memref, ValueRange indices);
  void storeScalarF32(Value v, Value memref, ValueRange indices);

  /// f32 (scalar or vector) -> `element` -> f32: the value rounded to nearest
  /// even in `element`, kept in f32 registers.
  Value roundTrip(Value v, Type element);
  /// f32 -> element, round to nearest even (f8E4M3FN saturates at +-448, i8
  /// at [-128, 127]); NaN -> the canonical positive NaN of a float type
  /// (f8 0x7F, bf16 0x7FC0, f16 0x7E00), 0 for an integer type.
  Value fromF32(Value v, Type element);
  /// element -> f32 (exact).
  Value toF32(Value v);

  /// Codes below a byte (ElementTypes.def's rows under 8 bits: i4, packed
  /// two a byte in the pages) travel in i8 lanes that hold a code's bits in
  /// their low bits. encodePackedCode: q (f32, scalar or vector, within the
  /// code type's +-qmax or NaN) as those i8 bits, rounded as the reference
  /// rounds to `codeType`. decodePackedCode: the f32 value of the code in the
  /// low bits of each i8 of `bits` (the bits above it are ignored).
  Value encodePackedCode(Value q, Type codeType);
  Value decodePackedCode(Value bits, Type codeType);

  /// e^x for f32 scalars or vectors with x <= 0 (softmax arguments after the
  /// max is subtracted): within 2 ulp; 0 below -87.3 (no subnormals), NaN
  /// stays NaN. About half the instructions of a general-range exp.
  Value expNonPositive(Value x);

  /// Horizontal reductions of an f32 vector.
  Value reduceAdd(Value v);
  Value reduceMax(Value v);

private:
  Value constantLike(Type type, double v);
  Value intConstantLike(Type type, int64_t v);
  Value encodeF8E4M3FN(Value v);
  Value decodeF8E4M3FN(Value bits);
  llvm::MaybeAlign vectorAlignment(Value memref) const;

  ImplicitLocOpBuilder &b;
  int64_t vl;
  bool scopes;
  int64_t threadsPerBlock = 0;
  int64_t itemsPerBlock = 0;
  std::optional<int64_t> gridStrideBlocksPerSM;
  const ::indexpool::target::CpuTarget *cpu = nullptr;
  bool int8QueryDot = false;
};

} // namespace mlir::indexpool::loops

#endif // INDEXPOOL_LIB_CONVERSION_COMMON_EMITTER_H
