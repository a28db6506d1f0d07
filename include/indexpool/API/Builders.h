//===- Builders.h - IndexPool functions from a few parameters ---*- C++ -*-===//
//
// The functions serving engines need most, built from their shapes and
// options instead of written as IR: each returns a Module holding one
// function whose IR a user can print (Module::str()) and edit. A size of -1
// is dynamic: one compiled function serves every size.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_API_BUILDERS_H
#define INDEXPOOL_API_BUILDERS_H

#include "indexpool/API/Module.h"
#include "indexpool/API/Status.h"
#include "indexpool/API/Tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace indexpool {

/// @compress(%keys [T, D], %scores, [%bias]) -> (%codes [T/P, D], %scales
/// [T/P]): indexpool.compress (pool -> [hadamard] -> quantize).
struct CompressSpec {
  /// Tokens (-1: dynamic) and head dimension of the keys.
  int64_t tokens = -1;
  int64_t dim = 128;
  /// f32, f16 or bf16.
  DType keyType = DType::BF16;
  int64_t poolSize = 4;
  /// Scores per token ([T]) or per token and channel ([T, D]), f32.
  bool perChannelScores = false;
  /// A learned bias per slot ([P]) or slot and channel ([P, D]) added to
  /// the scores: none, "slot" or "channel".
  std::string bias = "none";
  float temperature = 1.0f;
  bool rotate = true;
  /// f8E4M3FN or i8 codes.
  DType codeType = DType::F8E4M3FN;
  bool pow2Scale = false;
  std::string name = "compress";
};
std::unique_ptr<Module> buildCompress(const CompressSpec &spec,
                                      Status &status);

/// @select(%query [M, H, D], %head_weights [M, H] f32, %codes [N, D],
/// %scales [N] f32, [%valid [M] i32]) -> %tokens [M, k * P] i32: the query
/// is rotated as the keys were (when `rotate`), then indexpool.select.
struct SelectSpec {
  int64_t queries = 1;
  int64_t heads = 64;
  int64_t dim = 128;
  /// Pools in the cache (-1: dynamic).
  int64_t pools = -1;
  /// f32, f16, bf16 or f8E4M3FN.
  DType queryType = DType::BF16;
  /// f8E4M3FN or i8 (with scales), or f32 / f16 / bf16 (without).
  DType codeType = DType::F8E4M3FN;
  int64_t k = 512;
  int64_t poolSize = 4;
  bool rotate = true;
  /// Take the number of valid pools of every query row.
  bool valid = false;
  /// The two-stage selection (indexpool.refine) when > 0: select keeps
  /// refine * k pools, whose refine * k * P tokens are re-scored against
  /// the token keys (an argument after the others: %token_keys [tokens, D]
  /// of tokenKeyType, and %token_scales [tokens] f32 for f8E4M3FN / i8),
  /// with the query as given (unrotated: token keys are stored as the
  /// model made them), and the best k * P of them returned, in the same
  /// [M, k * P] shape as without refine.
  int64_t refine = 0;
  DType tokenKeyType = DType::BF16;
  /// Tokens in the cache (-1: dynamic).
  int64_t tokens = -1;
  std::string name = "select";
};
/// @select(%query [M, H, D], %head_weights [M, H] f32, %codes [N, D],
/// [%scales [N] f32], [%valid [M] i32], [%token_keys [T, D],
/// [%token_scales [T] f32]]) -> tokens [M, k * P] i32.
std::unique_ptr<Module> buildSelect(const SelectSpec &spec, Status &status);

// The paged serving layout (docs/serving-layout.md): the pages are
// [pages, E * (D + 4)] i8, E = pageEntries codes of D bytes then their f32
// scales (the scales first with `scalesFirst`). Compile compress_paged and
// append_paged with CompileOptions::inPlaceArguments naming the pages (and
// append's tails) so that a call updates the caller's cache where it is.

/// The layout properties every paged op shares.
struct PageLayout {
  /// Pages in the cache (-1: dynamic).
  int64_t pages = -1;
  int64_t pageEntries = 64;
  /// f8E4M3FN, i8 or i4 codes (i4: two a byte, dim even).
  DType codeType = DType::F8E4M3FN;
  bool scalesFirst = false;
};

/// @compress_paged(%keys [T, D], %scores, [%bias], %pages, %slots [T/P] i64)
/// -> %pages: indexpool.compress_paged (a prefill), group g written at slot
/// slots[g] (page slots[g] / E, entry slots[g] % E; negative: skipped).
struct CompressPagedSpec {
  /// Tokens (-1: dynamic) and head dimension of the keys.
  int64_t tokens = -1;
  int64_t dim = 128;
  /// f32, f16 or bf16.
  DType keyType = DType::BF16;
  int64_t poolSize = 4;
  /// Scores per token ([T]) or per token and channel ([T, D]), f32.
  bool perChannelScores = false;
  /// A learned bias added to the scores, as CompressSpec: none, "slot"
  /// ([P]) or "channel" ([P, D]).
  std::string bias = "none";
  float temperature = 1.0f;
  bool rotate = true;
  bool pow2Scale = false;
  PageLayout layout;
  std::string name = "compress_paged";
};
std::unique_ptr<Module> buildCompressPaged(const CompressPagedSpec &spec,
                                           Status &status);

/// @select_paged(%query [B, S, H, D], %head_weights [B, S, H] f32, %pages,
/// %block_table [B, max_pages] i32, %lengths [B, S] i32) -> %tokens
/// [B, S, k * P + P - 1] i32: the query rotated as the keys were (when
/// `rotate`), then indexpool.select_paged.
struct SelectPagedSpec {
  /// Sequences and query rows per sequence (-1: dynamic).
  int64_t batch = -1;
  int64_t rows = 1;
  int64_t heads = 64;
  int64_t dim = 128;
  /// Width of the block table (-1: dynamic).
  int64_t maxPages = -1;
  /// f32, f16, bf16 or f8E4M3FN.
  DType queryType = DType::BF16;
  int64_t k = 512;
  int64_t poolSize = 4;
  bool rotate = true;
  PageLayout layout;
  std::string name = "select_paged";
};
std::unique_ptr<Module> buildSelectPaged(const SelectPagedSpec &spec,
                                         Status &status);

/// @refine_paged(%query [B, S, H, D], %head_weights [B, S, H] f32,
/// %candidates [B, S, C] i32, %pages (the token tier: one entry per token),
/// %block_table [B, max_pages] i32, %lengths [B, S] i32) -> %tokens
/// [B, S, k] i32: the second stage of a two-stage selection
/// (indexpool.refine_paged, the query rotated first with `rotate`).
struct RefinePagedSpec {
  /// Sequences, query rows per sequence and candidates per row (-1:
  /// dynamic).
  int64_t batch = -1;
  int64_t rows = 1;
  int64_t candidates = -1;
  int64_t heads = 64;
  int64_t dim = 128;
  /// Width of the block table (-1: dynamic).
  int64_t maxPages = -1;
  /// f32, f16, bf16 or f8E4M3FN.
  DType queryType = DType::BF16;
  int64_t k = 2048;
  bool rotate = true;
  /// The token tier's layout: pageEntries tokens a page (P times the
  /// pooled pages' entries, so that both share the block table).
  PageLayout layout;
  std::string name = "refine_paged";
};
std::unique_ptr<Module> buildRefinePaged(const RefinePagedSpec &spec,
                                         Status &status);

/// @append_paged(%keys [B, n, D], %scores, [%bias], %tail_keys [B, P-1, D],
/// %tail_scores, %lengths [B] i32, %pages, %block_table [B, max_pages] i32)
/// -> (%pages, %tail_keys, %tail_scores): indexpool.append_paged (a decode
/// step; the caller adds n to its lengths).
struct AppendPagedSpec {
  /// Sequences and new tokens per sequence (-1: dynamic).
  int64_t batch = -1;
  int64_t newTokens = 1;
  int64_t dim = 128;
  /// Width of the block table (-1: dynamic).
  int64_t maxPages = -1;
  /// f32, f16 or bf16: the keys and tail keys.
  DType keyType = DType::BF16;
  int64_t poolSize = 4;
  /// Scores and tail scores per token ([B, n], [B, P-1]) or per token and
  /// channel ([B, n, D], [B, P-1, D]), f32.
  bool perChannelScores = false;
  /// none, "slot" ([P], per-token scores) or "channel" ([P, D]).
  std::string bias = "none";
  float temperature = 1.0f;
  bool rotate = true;
  bool pow2Scale = false;
  PageLayout layout;
  std::string name = "append_paged";
};
std::unique_ptr<Module> buildAppendPaged(const AppendPagedSpec &spec,
                                         Status &status);

} // namespace indexpool

#endif // INDEXPOOL_API_BUILDERS_H
