// A set of integer indices (a file's dirty page indices, the dirty node
// ids), visited in ascending order.
//
// Contract: Insert/Erase/Contains behave as on std::set<uint64_t>; ForEach
// visits every member once, smallest first; size() counts the members.
// Indices below the bitmap limit (set at construction) live in a bitmap
// that grows to the highest such index inserted, with one summary bit per
// 64-bit word so that a visit skips empty stretches a word of summary at a
// time; larger indices live in a std::set. Insert and Erase of an index
// below the limit are bit operations instead of a tree node's allocation
// and rebalancing: the cost of a page or node dirtied and written back.
//
// The conformance test is index_set_test.cc (against std::set over random
// steps on both sides of the limit).
#pragma once

#include <cstdint>
#include <set>
#include <vector>

namespace fs::vfs {

class IndexSet {
 public:
  // A file's page indices: its first 16 MiB in a bitmap of 512 bytes.
  static constexpr uint64_t kPageLimit = 4096;
  explicit IndexSet(uint64_t bitmap_limit = kPageLimit) : limit_(bitmap_limit) {}

  // True when idx was not a member.
  bool Insert(uint64_t idx) {
    if (idx >= limit_) {
      const bool added = large_.insert(idx).second;
      size_ += added;
      return added;
    }
    const uint64_t w = idx >> 6, bit = uint64_t{1} << (idx & 63);
    if (w >= words_.size()) {
      words_.resize(w + 1, 0);
      summary_.resize((w >> 6) + 1, 0);
    }
    if (words_[w] & bit) return false;
    words_[w] |= bit;
    summary_[w >> 6] |= uint64_t{1} << (w & 63);
    ++size_;
    return true;
  }
  // True when idx was a member.
  bool Erase(uint64_t idx) {
    if (idx >= limit_) {
      const bool removed = large_.erase(idx) != 0;
      size_ -= removed;
      return removed;
    }
    const uint64_t w = idx >> 6, bit = uint64_t{1} << (idx & 63);
    if (w >= words_.size() || !(words_[w] & bit)) return false;
    words_[w] &= ~bit;
    if (words_[w] == 0) summary_[w >> 6] &= ~(uint64_t{1} << (w & 63));
    --size_;
    return true;
  }
  bool Contains(uint64_t idx) const {
    if (idx >= limit_) return large_.count(idx) != 0;
    const uint64_t w = idx >> 6;
    return w < words_.size() && ((words_[w] >> (idx & 63)) & 1);
  }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Calls f(idx) for the members in ascending order while f returns true.
  // f must not change the set.
  template <class F>
  void ForEach(F f) const {
    if (size_ == 0) return;
    for (uint64_t s = 0; s < summary_.size(); ++s) {
      for (uint64_t ws = summary_[s]; ws != 0; ws &= ws - 1) {
        const uint64_t w = (s << 6) | static_cast<uint64_t>(__builtin_ctzll(ws));
        for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) {
          if (!f((w << 6) | static_cast<uint64_t>(__builtin_ctzll(bits)))) return;
        }
      }
    }
    for (const uint64_t idx : large_)
      if (!f(idx)) return;
  }
  // The smallest `max` members, ascending.
  std::vector<uint64_t> First(uint64_t max) const {
    std::vector<uint64_t> out;
    out.reserve(size_ < max ? size_ : max);
    ForEach([&](uint64_t idx) {
      if (out.size() >= max) return false;
      out.push_back(idx);
      return true;
    });
    return out;
  }

 private:
  uint64_t limit_;
  std::vector<uint64_t> words_;
  std::vector<uint64_t> summary_;  // bit w: words_[w] != 0
  std::set<uint64_t> large_;
  uint64_t size_ = 0;
};

}  // namespace fs::vfs
