// WriteBuffer: the bookkeeping of the SSD's DRAM write buffer (no timing).
//
// The buffer has a fixed number of page slots. A slot holds the buffered
// sectors of one logical page (a bit mask) and the sequence number of the
// last write placed into it. Slots are
//   - dirty:     waiting to be destaged, in a list ordered by sequence
//                number (a rewrite moves the slot to the tail: LRU order);
//   - destaging: handed to the FTL, in a list ordered by sequence number.
// A destaging slot is immutable: a write to its page takes a new slot, which
// becomes the page's current slot (the one Lookup() sees).
// Invariant: every destaging slot's sequence number is below every dirty
// slot's, so the oldest unprogrammed write is at the head of one of the two
// lists (OldestPendingSeq), which is what flushes wait on.
//
// Lookup is an open-addressing hash table (linear probing, backward-shift
// deletion) sized at construction; nothing is allocated afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ssd {

class WriteBuffer {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint64_t kNoSeq = UINT64_MAX;

  // REQUIRES: slots > 0.
  explicit WriteBuffer(uint32_t slots);

  uint32_t capacity() const { return static_cast<uint32_t>(lpn_.size()); }
  uint32_t occupied() const { return dirty_count_ + destaging_count_; }
  uint32_t dirty() const { return dirty_count_; }
  uint32_t destaging() const { return destaging_count_; }
  bool full() const { return occupied() == capacity(); }

  // Sectors of `lpn` held by its current slot (0 if none).
  uint64_t Lookup(uint64_t lpn) const;
  // Buffers sectors `mask` of `lpn` as write number `seq` (increasing).
  // Returns false, changing nothing, if a new slot is needed and none is free.
  bool Place(uint64_t lpn, uint64_t mask, uint64_t seq);
  // Drops `lpn`'s current slot if it is dirty and `covering_mask` covers all
  // its sectors (an overwrite that bypasses the buffer, or a trim).
  void Discard(uint64_t lpn, uint64_t covering_mask);
  // Discard(lpn, covering_mask) for every lpn in [first, end), visiting
  // whichever is smaller: the range or the dirty slots.
  void DiscardRange(uint64_t first, uint64_t end, uint64_t covering_mask);

  // Moves the oldest dirty slot to destaging; returns it, or kNone.
  uint32_t StartDestage();
  // The FTL programmed the slot: it becomes free.
  void FinishDestage(uint32_t slot);
  uint64_t slot_lpn(uint32_t slot) const { return lpn_[slot]; }
  uint64_t slot_mask(uint32_t slot) const { return mask_[slot]; }
  uint64_t slot_seq(uint32_t slot) const { return seq_[slot]; }

  // Smallest sequence number not yet programmed (dirty or destaging), or kNoSeq.
  uint64_t OldestPendingSeq() const;
  // Sequence number of the oldest dirty slot, or kNoSeq.
  uint64_t OldestDirtySeq() const;

 private:
  enum class State : uint8_t { kFree, kDirty, kDestaging };
  struct List {
    uint32_t head = kNone, tail = kNone;
  };
  void PushBack(List& l, uint32_t s);
  void Unlink(List& l, uint32_t s);
  uint32_t AllocSlot();

  // Hash table: lpn -> current slot.
  size_t Bucket(uint64_t lpn) const;
  uint32_t Find(uint64_t lpn) const;
  void Insert(uint64_t lpn, uint32_t slot);  // REQUIRES: lpn absent
  void Set(uint64_t lpn, uint32_t slot);     // REQUIRES: lpn present
  void Erase(uint64_t lpn);

  std::vector<uint64_t> lpn_, mask_, seq_;
  std::vector<uint32_t> prev_, next_;
  std::vector<State> state_;
  std::vector<uint8_t> current_;  // slot is its page's current slot (in the table)
  std::vector<uint32_t> free_;
  List dirty_list_, destaging_list_;
  uint32_t dirty_count_ = 0, destaging_count_ = 0;

  std::vector<uint32_t> table_;  // slot index or kNone
  uint32_t shift_ = 0;
};

}  // namespace ssd
