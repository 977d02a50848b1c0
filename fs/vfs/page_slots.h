// The cached pages of one file, owned and found by page index.
//
// Contract: Find/Insert/Take/Contains behave as on a
// std::map<uint64_t, std::unique_ptr<T>> of the present pages; ForEach
// visits the pages whose index is in a range, smallest index first; size()
// counts them. Indices below kDirectLimit live in a vector of slots grown
// to the highest such index inserted (a file's first 16 MiB of 4 KiB
// pages, 8 bytes a slot); larger ones in a std::map. A small index is found,
// inserted and taken with one slot access instead of a tree node's
// allocation, walk and rebalancing: the cost of every page cached,
// looked up and dropped on the data path.
//
// The conformance test is page_slots_test.cc (against std::map over random
// steps on both sides of the limit).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <type_traits>
#include <vector>

#include <glog/logging.h>

namespace fs::vfs {

template <class T>
class PageSlots {
 public:
  static constexpr uint64_t kDirectLimit = 4096;

  // The page at idx, or null.
  T* Find(uint64_t idx) const {
    if (idx < direct_.size()) return direct_[idx].get();
    if (idx < kDirectLimit) return nullptr;
    auto it = far_.find(idx);
    return it == far_.end() ? nullptr : it->second.get();
  }
  bool Contains(uint64_t idx) const { return Find(idx) != nullptr; }
  // Adds p at idx and returns it. REQUIRES: no page at idx, p not null.
  T* Insert(uint64_t idx, std::unique_ptr<T> p) {
    CHECK(p != nullptr);
    T* raw = p.get();
    if (idx < kDirectLimit) {
      if (idx >= direct_.size()) direct_.resize(idx + 1);
      CHECK(direct_[idx] == nullptr) << "page " << idx << " is already present";
      direct_[idx] = std::move(p);
    } else {
      const bool added = far_.emplace(idx, std::move(p)).second;
      CHECK(added) << "page " << idx << " is already present";
    }
    ++size_;
    return raw;
  }
  // Removes the page at idx and returns it; null if there is none.
  std::unique_ptr<T> Take(uint64_t idx) {
    std::unique_ptr<T> p;
    if (idx < kDirectLimit) {
      if (idx < direct_.size()) p = std::move(direct_[idx]);
    } else if (auto it = far_.find(idx); it != far_.end()) {
      p = std::move(it->second);
      far_.erase(it);
    }
    if (p != nullptr) --size_;
    return p;
  }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Calls f(idx, T*) for the pages with index in [first, last], ascending;
  // an f that returns bool stops the walk by returning false. f must not
  // insert or take pages.
  template <class F>
  void ForEach(uint64_t first, uint64_t last, F f) const {
    if (size_ == 0 || first > last) return;
    auto visit = [&](uint64_t idx, T* p) {
      if constexpr (std::is_same_v<decltype(f(idx, p)), bool>) {
        return f(idx, p);
      } else {
        f(idx, p);
        return true;
      }
    };
    const uint64_t direct_end = direct_.size() == 0 ? 0 : std::min<uint64_t>(last, direct_.size() - 1) + 1;
    for (uint64_t idx = first; idx < direct_end; ++idx) {
      if (direct_[idx] != nullptr && !visit(idx, direct_[idx].get())) return;
    }
    if (last < kDirectLimit) return;
    for (auto it = far_.lower_bound(first); it != far_.end() && it->first <= last; ++it) {
      if (!visit(it->first, it->second.get())) return;
    }
  }
  // The indices of the pages in [first, last], ascending.
  std::vector<uint64_t> Indices(uint64_t first = 0, uint64_t last = UINT64_MAX) const {
    std::vector<uint64_t> out;
    ForEach(first, last, [&](uint64_t idx, T*) { out.push_back(idx); });
    return out;
  }

 private:
  std::vector<std::unique_ptr<T>> direct_;
  std::map<uint64_t, std::unique_ptr<T>> far_;
  uint64_t size_ = 0;
};

}  // namespace fs::vfs
