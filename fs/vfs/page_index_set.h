// A set of page indices of one file (its dirty pages), visited in
// ascending order.
//
// Contract: Insert/Erase/Contains behave as on std::set<uint64_t>; ForEach
// visits every member once, smallest first; size() counts the members.
// Indices below kBitmapLimit live in a sim::IndexSet that grows to the
// highest such index inserted (a file's first 16 MiB in 512 bytes of
// bits); larger ones in a std::set. Insert and Erase of a small index are
// bit operations instead of a tree node's allocation and rebalancing: the
// cost of a page dirtied and written back on the data path.
//
// The conformance test is page_index_set_test.cc (against std::set over
// random steps on both sides of the limit).
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "sim/index_set.h"

namespace fs::vfs {

class PageIndexSet {
 public:
  static constexpr uint64_t kBitmapLimit = 4096;

  // True when idx was not a member.
  bool Insert(uint64_t idx) {
    if (idx >= kBitmapLimit) return high_.insert(idx).second;
    if (idx >= low_.capacity()) low_.Grow(std::min(kBitmapLimit, std::max<uint64_t>(idx + 1, 2 * low_.capacity())));
    return low_.Insert(idx);
  }
  // True when idx was a member.
  bool Erase(uint64_t idx) {
    if (idx >= kBitmapLimit) return high_.erase(idx) != 0;
    return idx < low_.capacity() && low_.Erase(idx);
  }
  bool Contains(uint64_t idx) const { return idx >= kBitmapLimit ? high_.count(idx) != 0 : low_.Contains(idx); }
  uint64_t size() const { return low_.size() + high_.size(); }
  bool empty() const { return low_.empty() && high_.empty(); }

  // Calls f(idx) for the members in ascending order while f returns true.
  // f must not change the set.
  template <class F>
  void ForEach(F f) const {
    bool go = true;
    low_.ForEach([&](uint64_t idx) { return go = f(idx); });
    if (!go) return;
    for (const uint64_t idx : high_)
      if (!f(idx)) return;
  }
  // The smallest `max` members, ascending.
  std::vector<uint64_t> First(uint64_t max) const {
    std::vector<uint64_t> out;
    out.reserve(std::min(size(), max));
    ForEach([&](uint64_t idx) {
      if (out.size() >= max) return false;
      out.push_back(idx);
      return true;
    });
    return out;
  }

 private:
  sim::IndexSet low_;
  std::set<uint64_t> high_;
};

}  // namespace fs::vfs
