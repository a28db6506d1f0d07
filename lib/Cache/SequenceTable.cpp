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

SequenceTable::Sequence *SequenceTable::find(SequenceId sequence,
                                             std::string &error) {
  auto it = sequences.find(sequence);
  if (it != sequences.end())
    return &it->second;
  error = sequence < nextId
              ? "sequence " + std::to_string(sequence) + " was freed"
              : "unknown sequence " + std::to_string(sequence);
  return nullptr;
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
