//===- BackgroundCompressor.h - Appends that never wait for compression ---===//
//
// A PagedCache driven from several threads, with its compression on a
// worker thread: submit() puts a decode step's new tokens into each
// sequence's front buffer and returns; the worker compresses them into
// their pages (append_paged) while selects read the committed pages. A
// select sees every submitted token exactly once: the committed ones
// through select_paged (its top k pooled entries and its tail), the ones
// still in the front buffer (waiting or being compressed) as tokens that
// are always selected, like the tail. The lock guards metadata only: the
// kernels run outside it, the worker writing entries no select reads
// (past the committed lengths, in pages made private first).
//
// free() waits for the selects that read the sequence; whenDrained()
// waits for the front buffers to drain, so a snapshot written there holds
// every submitted token.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_BACKGROUNDCOMPRESSOR_H
#define INDEXPOOL_CACHE_BACKGROUNDCOMPRESSOR_H

#include "indexpool/Cache/PagedCache.h"

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace indexpool::cache {

class BackgroundCompressor {
public:
  /// Starts the worker on `cache`, which this object then drives alone.
  explicit BackgroundCompressor(PagedCache &cache);
  /// Compresses what is left, then stops the worker.
  ~BackgroundCompressor();
  BackgroundCompressor(const BackgroundCompressor &) = delete;
  BackgroundCompressor &operator=(const BackgroundCompressor &) = delete;

  SequenceId add();
  /// The child inherits the parent's committed and submitted tokens.
  bool fork(SequenceId parent, SequenceId &child, std::string &error);
  bool free(SequenceId sequence, std::string &error);

  /// Queues `newTokens` tokens for each sequence of `batch` (distinct,
  /// live): keys[l] [B, n, D], scores[l] [B, n, W] per layer. Waits for the
  /// lock only, never for compression.
  bool submit(const std::vector<SequenceId> &batch, std::int64_t newTokens,
              const std::vector<const float *> &keys,
              const std::vector<const float *> &scores, std::string &error);

  /// Layer `layer`'s tokens per sequence of `batch` (queries [B, H, D],
  /// weights [B, H]): select_paged's row over the committed tokens (k * P
  /// selected, -1 for empty slots, then P - 1 tail slots; with a token
  /// tier, PagedCache::select's k * P + P - 1 refined tokens), then the ids
  /// of the tokens still in the front buffer, in order.
  bool select(const std::vector<SequenceId> &batch, std::int64_t layer,
              const float *queries, const float *weights,
              std::vector<std::vector<std::int32_t>> &tokens,
              std::string &error);

  /// Waits until every submitted token is compressed; false with the
  /// worker's error if compression failed (the cache then takes no more).
  bool flush(std::string &error);
  /// flush(), then `f(cache)` with the lock held: nothing changes the
  /// cache meanwhile (a snapshot: writeSnapshot inside `f`).
  bool whenDrained(const std::function<bool(const PagedCache &)> &f,
                   std::string &error);

  /// Submitted tokens of a live sequence (committed + front buffer), -1
  /// for a freed or unknown one.
  std::int64_t length(SequenceId sequence);

private:
  struct Front {
    std::vector<std::vector<float>> keys, scores; // per layer, tokens x D / W
    std::int64_t tokens = 0;
    std::int64_t readers = 0; // selects reading the sequence now
  };
  void work();
  /// Sequences with tokens waiting (caller holds the lock).
  bool waiting() const;

  PagedCache &cache;
  std::mutex lock;
  // Held while a select's kernel runs: the compiled function is not
  // reentrant (the worker's append is another function).
  std::mutex selectLock;
  std::condition_variable wake, changed;
  std::map<SequenceId, Front> fronts;
  bool stopping = false, busy = false;
  std::string failure;
  std::thread worker;
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_BACKGROUNDCOMPRESSOR_H
