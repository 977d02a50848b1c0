#include "ssd/write_buffer.h"

#include <glog/logging.h>

namespace ssd {

WriteBuffer::WriteBuffer(uint32_t slots)
    : lpn_(slots), mask_(slots), seq_(slots), prev_(slots, kNone), next_(slots, kNone),
      state_(slots, State::kFree), current_(slots, 0) {
  CHECK_GT(slots, 0u);
  free_.reserve(slots);
  for (uint32_t s = slots; s-- > 0;) free_.push_back(s);  // slot 0 first
  uint32_t bits = 1;
  while ((1ull << bits) < 2ull * slots) ++bits;
  table_.assign(1ull << bits, kNone);
  shift_ = 64 - bits;
}

size_t WriteBuffer::Bucket(uint64_t lpn) const {
  return static_cast<size_t>((lpn * 0x9E3779B97F4A7C15ull) >> shift_);
}

uint32_t WriteBuffer::Find(uint64_t lpn) const {
  const size_t mask = table_.size() - 1;
  for (size_t i = Bucket(lpn);; i = (i + 1) & mask) {
    const uint32_t s = table_[i];
    if (s == kNone) return kNone;
    if (lpn_[s] == lpn) return s;
  }
}

void WriteBuffer::Insert(uint64_t lpn, uint32_t slot) {
  const size_t mask = table_.size() - 1;
  size_t i = Bucket(lpn);
  while (table_[i] != kNone) i = (i + 1) & mask;
  table_[i] = slot;
}

void WriteBuffer::Set(uint64_t lpn, uint32_t slot) {
  const size_t mask = table_.size() - 1;
  for (size_t i = Bucket(lpn);; i = (i + 1) & mask) {
    CHECK_NE(table_[i], kNone);
    if (lpn_[table_[i]] == lpn) {
      table_[i] = slot;
      return;
    }
  }
}

void WriteBuffer::Erase(uint64_t lpn) {
  const size_t mask = table_.size() - 1;
  size_t i = Bucket(lpn);
  for (;; i = (i + 1) & mask) {
    CHECK_NE(table_[i], kNone) << "lpn " << lpn << " not in the write buffer";
    if (lpn_[table_[i]] == lpn) break;
  }
  // Backward-shift deletion: move later entries of the probe run into the hole.
  size_t hole = i;
  for (size_t j = (hole + 1) & mask; table_[j] != kNone; j = (j + 1) & mask) {
    const size_t home = Bucket(lpn_[table_[j]]);
    // Entry j may move to the hole if its home is not in (hole, j].
    const bool in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!in_range) {
      table_[hole] = table_[j];
      hole = j;
    }
  }
  table_[hole] = kNone;
}

void WriteBuffer::PushBack(List& l, uint32_t s) {
  prev_[s] = l.tail;
  next_[s] = kNone;
  if (l.tail == kNone) {
    l.head = s;
  } else {
    next_[l.tail] = s;
  }
  l.tail = s;
}

void WriteBuffer::Unlink(List& l, uint32_t s) {
  if (prev_[s] == kNone) {
    l.head = next_[s];
  } else {
    next_[prev_[s]] = next_[s];
  }
  if (next_[s] == kNone) {
    l.tail = prev_[s];
  } else {
    prev_[next_[s]] = prev_[s];
  }
  prev_[s] = next_[s] = kNone;
}

uint32_t WriteBuffer::AllocSlot() {
  if (free_.empty()) return kNone;
  const uint32_t s = free_.back();
  free_.pop_back();
  return s;
}

uint64_t WriteBuffer::Lookup(uint64_t lpn) const {
  const uint32_t s = Find(lpn);
  return s == kNone ? 0 : mask_[s];
}

bool WriteBuffer::Place(uint64_t lpn, uint64_t mask, uint64_t seq) {
  const uint32_t cur = Find(lpn);
  if (cur != kNone && state_[cur] == State::kDirty) {
    mask_[cur] |= mask;
    seq_[cur] = seq;
    Unlink(dirty_list_, cur);
    PushBack(dirty_list_, cur);
    return true;
  }
  const uint32_t s = AllocSlot();
  if (s == kNone) return false;
  lpn_[s] = lpn;
  seq_[s] = seq;
  state_[s] = State::kDirty;
  current_[s] = 1;
  if (cur != kNone) {
    // The page is being destaged: the new slot supersedes it and holds the
    // union (the older sectors are still in DRAM).
    mask_[s] = mask_[cur] | mask;
    current_[cur] = 0;
    Set(lpn, s);
  } else {
    mask_[s] = mask;
    Insert(lpn, s);
  }
  PushBack(dirty_list_, s);
  ++dirty_count_;
  return true;
}

void WriteBuffer::Discard(uint64_t lpn, uint64_t covering_mask) {
  const uint32_t s = Find(lpn);
  if (s == kNone || state_[s] != State::kDirty || (mask_[s] & ~covering_mask) != 0) return;
  Unlink(dirty_list_, s);
  --dirty_count_;
  Erase(lpn);
  current_[s] = 0;
  state_[s] = State::kFree;
  free_.push_back(s);
}

void WriteBuffer::DiscardRange(uint64_t first, uint64_t end, uint64_t covering_mask) {
  if (end <= first || dirty_count_ == 0) return;
  if (end - first <= dirty_count_) {
    for (uint64_t l = first; l < end; ++l) Discard(l, covering_mask);
    return;
  }
  for (uint32_t s = dirty_list_.head; s != kNone;) {
    const uint32_t next = next_[s];
    if (lpn_[s] >= first && lpn_[s] < end) Discard(lpn_[s], covering_mask);
    s = next;
  }
}

uint32_t WriteBuffer::StartDestage() {
  const uint32_t s = dirty_list_.head;
  if (s == kNone) return kNone;
  Unlink(dirty_list_, s);
  --dirty_count_;
  state_[s] = State::kDestaging;
  PushBack(destaging_list_, s);
  ++destaging_count_;
  return s;
}

void WriteBuffer::FinishDestage(uint32_t slot) {
  CHECK(state_[slot] == State::kDestaging);
  Unlink(destaging_list_, slot);
  --destaging_count_;
  if (current_[slot]) Erase(lpn_[slot]);
  current_[slot] = 0;
  state_[slot] = State::kFree;
  free_.push_back(slot);
}

uint64_t WriteBuffer::OldestPendingSeq() const {
  uint64_t m = kNoSeq;
  if (destaging_list_.head != kNone) m = seq_[destaging_list_.head];
  if (dirty_list_.head != kNone && seq_[dirty_list_.head] < m) m = seq_[dirty_list_.head];
  return m;
}

uint64_t WriteBuffer::OldestDirtySeq() const {
  return dirty_list_.head == kNone ? kNoSeq : seq_[dirty_list_.head];
}

}  // namespace ssd
