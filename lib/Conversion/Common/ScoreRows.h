//===- ScoreRows.h - the score arithmetic of CPU row loops ------*- C++ -*-===//
//
// score, select, refine and the paged selections score key rows the same
// way: a block of key rows (one per vector lane) decoded into a scratch,
// then every head of a query row against them. A vector of heads is
// multiplied by one key element broadcast (an outer product), so that no
// dot product ends in a horizontal reduction and the loop over D is a
// chain of FMAs or of the CPU target's dot instructions; the block of
// dots is then transposed (rows in the lanes) and the heads are summed in
// order, one fma each, as indexpool.score defines. The multiply is:
//   - f32 FMA (any target, any types);
//   - a bf16 pair dot with f32 accumulation (vdpbf16ps, bfdot) when the
//     target has one and bf16 holds every value of the query's and the
//     keys' types exactly (bf16, FP8, FP4 and integer codes): the products
//     are then exact, as in f32, and only the order of the sums differs
//     (and bf16 subnormals, below 2^-126, count as 0, as the instructions
//     flush them). The loops write it as a vector.contract of
//     vector<Nx2xbf16> operands; --indexpool-dot-instructions makes
//     it the instruction after the buffer deallocation (which refuses
//     intrinsic calls);
//   - opt-in (Emitter::int8Query, --int8-query), for i8 and i4 keys on a
//     target with an int8 dot (vpdpbusd, sdot): the query quantized per
//     query row and head to int8 codes c with one f32 scale a = max|q| /
//     127 (round to nearest even), the dot a * (sum of c * key code) in
//     i32, exact. Approximate: it differs from score's dot by at most
//     (a / 2) * sum_d |key code|, times the key's scale, plus f32
//     rounding; a head whose query holds an infinity or NaN scores NaN.
//     On x86 the keys are stored offset by 128 (vpdpbusd takes unsigned
//     bytes) and 128 * sum(c) is taken off per head; on Arm (sdot) they
//     are stored as they are. Written as a vector.contract of extended
//     vector<Nx4xi8> operands into vector<Nxi32>. The heads are summed
//     per lane (heads j, j + N, ...) and then the lanes in order, not in
//     head order: no transpose per tile.
// FP8 (f8E4M3FN) keys into bf16 pairs: every FP8 value is a bf16 value, so
// on a target with a 128-byte table lookup (vpermi2b) at its vector width
// a code x becomes bf16 bits hi[x & 0x7F] | (x & 0x80), lo[x & 0x7F] (the
// sign kept off NaN, whose bits are the canonical 0x7FC0 as the f32 path
// stores them): two lookups and an interleave per 64 codes, the tables
// built from the reference's FP8 decoder. Bit for bit the f32 path's bytes.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_COMMON_SCOREROWS_H
#define INDEXPOOL_LIB_CONVERSION_COMMON_SCOREROWS_H

#include "Emitter.h"

#include <string>

namespace indexpool::target {
struct CpuTarget;
} // namespace indexpool::target

namespace mlir::indexpool::loops {

/// How the loop over D multiplies: f32 FMAs, bf16 pair dots, or int8 quad
/// dots of a quantized query.
enum class ScoreDot { Fma, Bf16Pairs, Int8Quads };

/// The LLVM intrinsic of CPU target `cpu`'s `dot` into `lanes` accumulators:
/// the bf16 pair dot into f32 (llvm.x86.avx512bf16.dpbf16ps.*,
/// llvm.aarch64.neon.bfdot.*) or the int8 quad dot into i32
/// (llvm.x86.avx512.vpdpbusd.*, llvm.aarch64.neon.sdot.*); "" where it has
/// none (cpu null, no such dot, another width, ScoreDot::Fma).
std::string dotIntrinsic(ScoreDot dot,
                         const ::indexpool::target::CpuTarget *cpu,
                         int64_t lanes);

/// The LLVM intrinsic that looks up the bytes of one vector of `lanes` f32
/// lanes (4 * lanes indices) in a table of twice as many bytes on CPU
/// target `cpu` (llvm.x86.avx512.vpermi2var.qi.512 at 16 lanes: 64 bytes
/// in a 128-byte table, CpuTarget::byteTable128); "" where it has none.
std::string byteTableIntrinsic(const ::indexpool::target::CpuTarget *cpu,
                               int64_t lanes);

/// Whether `cpu`'s int8 dot takes the key bytes unsigned (vpdpbusd: keys
/// offset by 128) rather than signed (sdot).
bool quadDotKeysUnsigned(const ::indexpool::target::CpuTarget *cpu);

/// How CPU target `cpu` (null: none) scores at `vectorWidth` f32 lanes a
/// query and keys of these element types; `int8Query`: integer keys may
/// take the approximate int8 quad dot.
ScoreDot chooseScoreDot(const ::indexpool::target::CpuTarget *cpu,
                        int64_t vectorWidth, Type queryElement, Type keyElement,
                        bool int8Query = false);

/// Whether bf16 holds every value of `element` (so that a conversion to it
/// is exact): bf16 itself, floats of at most 8 significand bits within its
/// exponent range, integers of at most 8 bits.
bool bf16HoldsEvery(Type element);

/// A query laid out for the score loops, made once per op.
struct ScoreQuery {
  /// [M, D, Hp] f32 (FMA), [M, D / 2, 2 Hp] bf16 (pairs: element
  /// 2 h + j of row d / 2 is q[m, h, 2 (d / 2) + j]) or [M, D / 4, 4 Hp]
  /// i8 (quads: the query's int8 codes, likewise); heads past H are 0.
  Value panel;
  /// Quads: [M, Hp] f32, the query's scale per head, and [M, Hp] i32, what
  /// the keys' offset adds to each head's dot (128 * sum of its codes;
  /// null where the keys are signed).
  Value queryScales, offsetSums;
  /// [M, Hp] f32 head weights, 0 past H.
  Value weights;
  /// H, and Hp: H rounded up to whole vectors.
  Value heads, paddedHeads;
  /// D, and D when it is static (the key rows' scratch takes it).
  Value dimD;
  int64_t staticD;
  /// Whether Hp may exceed H (lanes past H are then masked off).
  bool mayPad;
  ScoreDot dot;
  /// f8E4M3FN keys that the bf16 pairs take through the byte tables
  /// (emitStoreF8KeyCodes): the codes of one step, 4 * vector width (64,
  /// one vpermi2b); 0 where they go through f32 lanes (emitStoreKeyValues):
  /// other keys or dots, no byteTableIntrinsic, D not a multiple of it.
  int64_t keyTableCodes = 0;

  /// The element type key rows are decoded to for the score loops.
  Type rowElement(MLIRContext *context) const;
};

/// Lays out `query` [M, H, D] (any float type) and `weights` [M, H] for
/// the score loops over key rows of type `keyElement`, with the dot of the
/// emitter's CPU target where it applies (chooseScoreDot; pairs need a
/// static, even D).
ScoreQuery emitScoreQuery(Emitter &e, Value query, Value weights,
                          Type keyElement);

/// Stores `v` (f32 lanes, decoded key values that sq.rowElement() holds
/// exactly) into row `r` of a key-row scratch at `offset` (`mask`: as
/// Emitter::storeF32's): for bf16, the top half of each f32, which is
/// exact for such values (NaN: 0x7FC0, the canonical one); for i8, the
/// integer (plus 128 where the keys are unsigned).
void emitStoreKeyValues(Emitter &e, const ScoreQuery &sq, Value v, Value rows,
                        Value r, Value offset, Value mask);

/// Stores `codes` (a vector of integer key codes as sign-extended i8) into
/// row `r` of an int8-dot key-row scratch at `offset` as the quad dot
/// takes them (plus 128 where the keys are unsigned); `mask`: as
/// Emitter::storeF32's.
void emitStoreKeyBytes(Emitter &e, const ScoreQuery &sq, Value codes,
                       Value rows, Value r, Value offset, Value mask = {});

/// Stores sq.keyTableCodes f8E4M3FN codes (`codes`: their bytes, a vector
/// of i8) as bf16 into row `r` of a bf16 pairs key-row scratch at `offset`:
/// the bytes emitStoreKeyValues stores for their f32 values (-0 0x8000,
/// either NaN 0x7FC0), by two byte-table lookups, the sign and an
/// interleave. The lookups are vector.gather ops from constant 128-byte
/// globals (@__indexpool_f8E4M3FN_bf16_high, _low) until
/// --indexpool-dot-instructions makes each the target's vpermi2b with the
/// table as two constant vectors.
void emitStoreF8KeyCodes(Emitter &e, const ScoreQuery &sq, Value codes,
                         Value rows, Value r, Value offset);

/// Key rows per block: one per lane.
inline int64_t scoreRowsPerBlock(const Emitter &e) { return e.width(); }

/// The logits of query row `m` for the key rows of `rows` ([R, D] of
/// sq.rowElement(), decoded) with their scales (`scaleOf`, one per row, or
/// empty; R = scoreRowsPerBlock): sum_h w[m, h] * relu(scale * dot(q[m, h],
/// row)), the arithmetic of indexpool.score: products exact, the dot's sum
/// over D in f32 (in order, or in pairs), the heads in order with fma.
SmallVector<Value> emitScoreRows(Emitter &e, const ScoreQuery &sq, Value m,
                                 Value rows, ArrayRef<Value> scaleOf);

} // namespace mlir::indexpool::loops

#endif // INDEXPOOL_LIB_CONVERSION_COMMON_SCOREROWS_H
