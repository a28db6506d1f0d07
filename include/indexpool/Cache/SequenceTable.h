//===- SequenceTable.h - Sequences, block tables and copy-on-write forks --===//
//
// The bookkeeping of a paged indexer cache (docs/serving-layout.md): each
// sequence has a length in tokens and a block table, the pages that hold its
// pooled entries (group g: page blockTable[g / E], entry g % E; the newest
// length mod P tokens are its tail, outside the pages). A fork shares its
// parent's pages, the way engines share a system prompt; the first append
// that would write into a shared page gets a private copy of it instead
// (copy-on-write), so no sequence ever changes another's entries. Ids of
// freed sequences are never reused, so a late call on one is an error, not
// a call on someone else's sequence. Page contents are the caller's (one
// array per layer): reserve() says which pages to copy.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_SEQUENCETABLE_H
#define INDEXPOOL_CACHE_SEQUENCETABLE_H

#include "indexpool/Cache/PageAllocator.h"

#include <map>

namespace indexpool::cache {

using SequenceId = std::uint64_t;

/// A page to copy (every layer's bytes of it) before an append writes.
struct PageCopy {
  PageIndex from, to;
};

class SequenceTable {
public:
  /// Pools of `poolSize` tokens, `pageEntries` entries per page (both >= 1).
  SequenceTable(PageAllocator &pages, std::int64_t poolSize,
                std::int64_t pageEntries);
  SequenceTable(const SequenceTable &) = delete;
  SequenceTable &operator=(const SequenceTable &) = delete;
  /// Every live sequence's pages go back to the allocator.
  ~SequenceTable();

  /// A new empty sequence.
  SequenceId add();
  /// A new sequence sharing `parent`'s pages, length and (the caller's copy
  /// of) its tail; false with `error` set for an unknown or freed parent.
  bool fork(SequenceId parent, SequenceId &child, std::string &error);
  /// A new sequence of `length` tokens whose block table is `row`, one
  /// entry per page its entries need (pagesFor(length)): a page id to
  /// share (one more reference to a taken page), or -1 for a fresh page,
  /// which `row` then holds. All or nothing: false with `error` set for a
  /// bad length or row, or too few free pages.
  bool addWithPages(std::int64_t length, std::vector<PageIndex> &row,
                    SequenceId &sequence, std::string &error);
  /// The pages a sequence of `length` tokens has entries in.
  std::int64_t pagesFor(std::int64_t length) const {
    return (length / poolSize + pageEntries - 1) / pageEntries;
  }
  /// Releases the sequence's pages; false for an unknown or freed one.
  bool free(SequenceId sequence, std::string &error);

  /// Makes `sequence` ready for `tokens` more: a page for every entry the
  /// groups they complete land in, a private copy of a shared page an entry
  /// would be written in (`copies`, to do before the append). All or
  /// nothing: false with `error` set (and nothing changed) for an unknown
  /// sequence, a length past 2^62, or a budget too small.
  bool reserve(SequenceId sequence, std::int64_t tokens,
               std::vector<PageCopy> &copies, std::string &error);
  /// The append ran: the length grows by `tokens` (after reserve).
  bool commit(SequenceId sequence, std::int64_t tokens, std::string &error);

  bool live(SequenceId sequence) const { return sequences.count(sequence); }
  /// True for a live sequence; else false with `error` saying whether it
  /// was freed or never given.
  bool check(SequenceId sequence, std::string &error) const;
  /// The length (tokens) and block table of a live sequence.
  std::int64_t length(SequenceId sequence) const;
  const std::vector<PageIndex> &blockTable(SequenceId sequence) const;
  std::size_t liveSequences() const { return sequences.size(); }
  /// The live sequences' ids, ascending, and the next id add() gives.
  std::vector<SequenceId> liveIds() const;
  SequenceId nextSequenceId() const { return nextId; }

  /// A sequence of a restored cache.
  struct Restored {
    SequenceId id;
    std::int64_t length;
    std::vector<PageIndex> blockTable;
  };
  /// Replaces an empty table's contents (a restore): the sequences, the
  /// next id and the allocator's references, after checking that ids are
  /// distinct and below `next`, lengths in [0, 2^62), page ids inside the
  /// budget and every block table long enough for its entries; false with
  /// `error` set (and nothing changed) otherwise.
  bool restore(std::vector<Restored> restored, SequenceId next,
               std::string &error);

private:
  struct Sequence {
    std::int64_t length = 0;
    // Tokens reserve() made room for beyond `length`.
    std::int64_t reserved = 0;
    std::vector<PageIndex> blockTable;
  };
  /// The live sequence, or null with `error` naming what `sequence` is.
  Sequence *find(SequenceId sequence, std::string &error);

  PageAllocator &pages;
  const std::int64_t poolSize, pageEntries;
  std::map<SequenceId, Sequence> sequences;
  SequenceId nextId = 0;
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_SEQUENCETABLE_H
