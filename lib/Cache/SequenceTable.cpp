//===- SequenceTable.cpp - Sequences, block tables and copy-on-write forks ===//

#include "indexpool/Cache/SequenceTable.h"

#include <algorithm>
#include <cassert>

using namespace indexpool::cache;

// Lengths stay below this, so that length + tokens and every page count
// derived from them fit int64.
static constexpr std::int64_t kMaxLength = std::int64_t(1) << 62;

SequenceTable::SequenceTable(PageAllocator &pages, std::int64_t poolSize,
                             std::int64_t pageEntries)
    : pages(pages), poolSize(poolSize), pageEntries(pageEntries) {
  assert(poolSize >= 1 && pageEntries >= 1);
}

SequenceTable::~SequenceTable() {
  for (auto &[id, s] : sequences)
    for (PageIndex page : s.blockTable)
      pages.release(page);
}

bool SequenceTable::check(SequenceId sequence, std::string &error) const {
  if (sequences.count(sequence))
    return true;
  error = sequence < nextId
              ? "sequence " + std::to_string(sequence) + " was freed"
              : "unknown sequence " + std::to_string(sequence);
  return false;
}

SequenceTable::Sequence *SequenceTable::find(SequenceId sequence,
                                             std::string &error) {
  if (!check(sequence, error))
    return nullptr;
  return &sequences.find(sequence)->second;
}

SequenceId SequenceTable::add() {
  sequences.emplace(nextId, Sequence());
  return nextId++;
}

bool SequenceTable::fork(SequenceId parent, SequenceId &child,
                         std::string &error) {
  Sequence *p = find(parent, error);
  if (!p)
    return false;
  Sequence copy;
  copy.length = p->length;
  copy.blockTable = p->blockTable;
  for (PageIndex page : copy.blockTable)
    pages.retain(page);
  child = nextId++;
  sequences.emplace(child, std::move(copy));
  return true;
}

bool SequenceTable::addWithPages(std::int64_t length,
                                 std::vector<PageIndex> &row,
                                 SequenceId &sequence, std::string &error) {
  if (length < 0 || length >= kMaxLength ||
      std::int64_t(row.size()) != pagesFor(length)) {
    error = "a sequence of " + std::to_string(length) + " tokens with " +
            std::to_string(row.size()) + " pages (0 to 2^62 tokens, " +
            std::to_string(length < 0 || length >= kMaxLength
                               ? 0
                               : pagesFor(length)) +
            " pages for that length)";
    return false;
  }
  std::uint64_t fresh = 0;
  for (PageIndex page : row) {
    if (page == -1) {
      ++fresh;
      continue;
    }
    if (page < 0 || std::uint64_t(page) >= pages.capacity() ||
        pages.references(page) == 0) {
      error = "page " + std::to_string(page) + " is not a taken page";
      return false;
    }
  }
  if (fresh > pages.freePages()) {
    error = "a sequence of " + std::to_string(length) + " tokens needs " +
            std::to_string(fresh) + " more pages, " +
            std::to_string(pages.freePages()) + " of the " +
            std::to_string(pages.capacity()) + " in the budget are free";
    return false;
  }
  for (PageIndex &page : row) {
    if (page == -1)
      page = *pages.allocate();
    else
      pages.retain(page);
  }
  Sequence s;
  s.length = length;
  s.blockTable = row;
  sequence = nextId++;
  sequences.emplace(sequence, std::move(s));
  return true;
}

bool SequenceTable::free(SequenceId sequence, std::string &error) {
  Sequence *s = find(sequence, error);
  if (!s)
    return false;
  for (PageIndex page : s->blockTable)
    pages.release(page);
  sequences.erase(sequence);
  return true;
}

bool SequenceTable::reserve(SequenceId sequence, std::int64_t tokens,
                            std::vector<PageCopy> &copies, std::string &error) {
  copies.clear();
  Sequence *s = find(sequence, error);
  if (!s)
    return false;
  if (tokens < 0 || tokens > kMaxLength - s->length) {
    error = "sequence " + std::to_string(sequence) + ": appending " +
            std::to_string(tokens) + " tokens to " + std::to_string(s->length) +
            ": expected 0 to 2^62 tokens in all";
    return false;
  }
  // Entries [first, end) get written: their pages must exist and be private.
  const std::int64_t first = s->length / poolSize;
  const std::int64_t end = (s->length + tokens) / poolSize;
  const std::int64_t pagesNeeded = (end + pageEntries - 1) / pageEntries;
  const std::int64_t have = static_cast<std::int64_t>(s->blockTable.size());
  std::vector<std::int64_t> shared;
  for (std::int64_t i = first / pageEntries; first < end && i < have && i < pagesNeeded;
       ++i)
    if (pages.references(s->blockTable[i]) > 1)
      shared.push_back(i);
  const std::uint64_t wanted =
      std::uint64_t(std::max<std::int64_t>(pagesNeeded - have, 0)) + shared.size();
  if (wanted > pages.freePages()) {
    error = "sequence " + std::to_string(sequence) + ": appending " +
            std::to_string(tokens) + " tokens needs " + std::to_string(wanted) +
            " more pages, " + std::to_string(pages.freePages()) + " of the " +
            std::to_string(pages.capacity()) + " in the budget are free";
    return false;
  }
  for (std::int64_t i : shared) {
    PageIndex copy = *pages.allocate();
    copies.push_back({s->blockTable[i], copy});
    pages.release(s->blockTable[i]);
    s->blockTable[i] = copy;
  }
  for (std::int64_t i = have; i < pagesNeeded; ++i)
    s->blockTable.push_back(*pages.allocate());
  s->reserved = tokens;
  return true;
}

bool SequenceTable::commit(SequenceId sequence, std::int64_t tokens,
                           std::string &error) {
  Sequence *s = find(sequence, error);
  if (!s)
    return false;
  if (tokens < 0 || tokens > s->reserved) {
    error = "sequence " + std::to_string(sequence) + ": committing " +
            std::to_string(tokens) + " tokens, " + std::to_string(s->reserved) +
            " reserved";
    return false;
  }
  s->length += tokens;
  s->reserved = 0;
  return true;
}

std::int64_t SequenceTable::length(SequenceId sequence) const {
  return sequences.at(sequence).length;
}

const std::vector<PageIndex> &
SequenceTable::blockTable(SequenceId sequence) const {
  return sequences.at(sequence).blockTable;
}

std::vector<SequenceId> SequenceTable::liveIds() const {
  std::vector<SequenceId> ids;
  for (const auto &entry : sequences)
    ids.push_back(entry.first);
  return ids;
}

bool SequenceTable::restore(std::vector<Restored> restored, SequenceId next,
                            std::string &error) {
  if (!sequences.empty()) {
    error = "restoring into a table that has sequences";
    return false;
  }
  std::vector<std::uint32_t> counts(pages.capacity(), 0);
  std::map<SequenceId, Sequence> table;
  for (Restored &r : restored) {
    const std::string name = "sequence " + std::to_string(r.id);
    if (r.id >= next || table.count(r.id)) {
      error = name + ": a repeated id or one not below the next id " +
              std::to_string(next);
      return false;
    }
    if (r.length < 0 || r.length >= kMaxLength) {
      error = name + ": length " + std::to_string(r.length);
      return false;
    }
    const std::int64_t entries = r.length / poolSize;
    if (std::int64_t(r.blockTable.size()) <
        (entries + pageEntries - 1) / pageEntries) {
      error = name + ": " + std::to_string(r.blockTable.size()) +
              " pages for " + std::to_string(entries) + " entries";
      return false;
    }
    for (PageIndex page : r.blockTable) {
      if (page < 0 || std::uint64_t(page) >= pages.capacity()) {
        error = name + ": page " + std::to_string(page) + " outside the " +
                std::to_string(pages.capacity()) + " of the budget";
        return false;
      }
      ++counts[size_t(page)];
    }
    Sequence s;
    s.length = r.length;
    s.blockTable = std::move(r.blockTable);
    table.emplace(r.id, std::move(s));
  }
  pages.assign(counts);
  sequences = std::move(table);
  nextId = next;
  return true;
}
