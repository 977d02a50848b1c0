// IndexSet: a set of indices in [0, capacity) as a two-level bitmap (one
// bit per index, one summary bit per 64-bit word), with "next member at or
// after i" in O(capacity / 4096) and visits in ascending order that skip
// empty stretches a summary word at a time. Insert and Erase never
// allocate; Grow widens the range keeping the members.
//
// Users: filebench's existing / non-existing entry sets, picked in
// rotation (host/fsworkload/fileset.h); the file systems' dirty page and
// node sets (fs/vfs/ordered_index_set.h). Conformance test:
// index_set_test.cc, against std::set.
#pragma once

#include <cstdint>
#include <vector>

#include <glog/logging.h>

namespace sim {

class IndexSet {
 public:
  static constexpr int64_t kNone = -1;

  explicit IndexSet(uint64_t capacity = 0) { Reset(capacity); }
  // Empties the set and sets its range to [0, capacity).
  void Reset(uint64_t capacity);
  // Widens the range to [0, capacity), keeping the members.
  // REQUIRES: capacity >= capacity().
  void Grow(uint64_t capacity);

  uint64_t capacity() const { return capacity_; }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool Contains(uint64_t i) const { return i < capacity_ && ((l0_[i >> 6] >> (i & 63)) & 1); }
  // REQUIRES: i < capacity(). Return whether the set changed.
  bool Insert(uint64_t i) {
    DCHECK_LT(i, capacity_);
    uint64_t& w = l0_[i >> 6];
    const uint64_t bit = uint64_t{1} << (i & 63);
    if (w & bit) return false;
    w |= bit;
    l1_[i >> 12] |= uint64_t{1} << ((i >> 6) & 63);
    ++size_;
    return true;
  }
  bool Erase(uint64_t i) {
    DCHECK_LT(i, capacity_);
    uint64_t& w = l0_[i >> 6];
    const uint64_t bit = uint64_t{1} << (i & 63);
    if (!(w & bit)) return false;
    w &= ~bit;
    if (w == 0) l1_[i >> 12] &= ~(uint64_t{1} << ((i >> 6) & 63));
    --size_;
    return true;
  }

  // Smallest member >= i, or kNone.
  int64_t NextAtOrAfter(uint64_t i) const;
  // Smallest member >= i, else the smallest member; kNone if empty.
  int64_t NextWrap(uint64_t i) const {
    const int64_t r = NextAtOrAfter(i);
    return r != kNone ? r : NextAtOrAfter(0);
  }
  // Calls f(i) for the members in ascending order while f returns true.
  // f must not change the set.
  template <class F>
  void ForEach(F f) const {
    if (size_ == 0) return;
    for (uint64_t s = 0; s < l1_.size(); ++s) {
      for (uint64_t ws = l1_[s]; ws != 0; ws &= ws - 1) {
        const uint64_t w = (s << 6) | static_cast<uint64_t>(__builtin_ctzll(ws));
        for (uint64_t bits = l0_[w]; bits != 0; bits &= bits - 1) {
          if (!f((w << 6) | static_cast<uint64_t>(__builtin_ctzll(bits)))) return;
        }
      }
    }
  }

 private:
  uint64_t capacity_ = 0;
  uint64_t size_ = 0;
  std::vector<uint64_t> l0_;  // bit i: member i
  std::vector<uint64_t> l1_;  // bit w: l0_[w] != 0
};

}  // namespace sim
