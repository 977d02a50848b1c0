// IndexSet: a set of indices in [0, capacity) with O(capacity / 4096)
// "next member at or after i" queries (two-level bitmap). Used for
// filebench's existing / non-existing entry sets, picked in rotation.
// Insert and Erase never allocate.
#pragma once

#include <cstdint>
#include <vector>

namespace host {

class IndexSet {
 public:
  static constexpr int64_t kNone = -1;

  explicit IndexSet(uint64_t capacity = 0) { Reset(capacity); }
  void Reset(uint64_t capacity);

  uint64_t capacity() const { return capacity_; }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool Contains(uint64_t i) const { return (l0_[i >> 6] >> (i & 63)) & 1; }
  // REQUIRES: i < capacity(). Return whether the set changed.
  bool Insert(uint64_t i);
  bool Erase(uint64_t i);

  // Smallest member >= i, or kNone.
  int64_t NextAtOrAfter(uint64_t i) const;
  // Smallest member >= i, else the smallest member; kNone if empty.
  int64_t NextWrap(uint64_t i) const {
    const int64_t r = NextAtOrAfter(i);
    return r != kNone ? r : NextAtOrAfter(0);
  }

 private:
  uint64_t capacity_ = 0;
  uint64_t size_ = 0;
  std::vector<uint64_t> l0_;  // bit i: member i
  std::vector<uint64_t> l1_;  // bit w: l0_[w] != 0
};

}  // namespace host
